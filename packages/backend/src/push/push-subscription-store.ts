import { timingSafeEqual } from 'node:crypto';
import { join } from 'node:path';
import { pino, type Logger } from 'pino';
import type { z } from 'zod';
import { BrowserSessionIdSchema, IdeaIdSchema } from '@catalyst/protocol';
import { CatalystError } from '../core/catalyst-error.ts';
import { summarizeIssues } from '../core/issue-summary.ts';
import { readPrivateFile } from '../service/private-file.ts';
import { writeFileAtomically } from '../service/atomic-file.ts';
import { parseOwnJsonFile } from '../service/own-json-file.ts';
import {
  endpointRefusal,
  MAX_MUTED_IDEAS,
  pushSubscriptionJsonSchema,
  pushSubscriptionsFileSchema,
  type EndpointRule,
  type StoredPushSubscription,
} from './push-subscription-schema.ts';

/**
 * The browsers that asked to be notified: `<configDir>/push-subscriptions.json` (0600, written whole and renamed
 * into place), each subscription under the browser session that made it, so that signing a browser out ends its
 * pushes too. A change is written before it is answered, one at a time; one that could not be written did not
 * happen. A file found damaged at start-up (a crash mid-write) is set aside with a warning (own-json-file.ts).
 */

export const PUSH_SUBSCRIPTIONS_FILE = 'push-subscriptions.json';
/** More than a browser ever makes for one login (one per service worker registration); the oldest goes first. */
const MAX_PER_SESSION = 10;

export interface PushSubscriptionStoreOptions extends EndpointRule {
  configDir: string;
  /** Where a damaged file's warning goes; silent when not given. */
  logger?: Logger;
  /** Tests fix the clock; Date.now otherwise. */
  now?: () => number;
}

export interface MuteChange {
  sessionId: string;
  endpoint: string;
  ideaId: string;
  isMuted: boolean;
}

export interface PushSubscriptionStore {
  list(): readonly StoredPushSubscription[];
  /**
   * Keeps `subscription` (parsed here: `PushSubscription.toJSON()`) for the session. One of the same endpoint is
   * replaced, keeping its mutes, which are the device's. INVALID_ARGUMENT when it is not a subscription, or when
   * another session has that endpoint with other keys; UNSAFE_ARGUMENT when the endpoint is no push service's.
   */
  add(sessionId: string, subscription: unknown): Promise<StoredPushSubscription>;
  /** False when there is none; with `sessionId`, only one of that session is removed. */
  remove(endpoint: string, options?: { sessionId?: string }): Promise<boolean>;
  /** Every subscription of a browser session (signed out); how many there were. */
  removeSession(sessionId: string): Promise<number>;
  /** False when the session has no subscription at that endpoint. */
  setMuted(change: MuteChange): Promise<boolean>;
}

export async function openPushSubscriptions(
  options: PushSubscriptionStoreOptions,
): Promise<PushSubscriptionStore> {
  const path = join(options.configDir, PUSH_SUBSCRIPTIONS_FILE);
  const fileSchema = pushSubscriptionsFileSchema(options);
  const inputSchema = pushSubscriptionJsonSchema(options);
  const now = options.now ?? Date.now;
  // A push service no longer listed (CATALYST_PUSH_SERVICES changed, an endpoint kept before issue 39) gets no
  // more pushes; the file forgets it at the next change.
  let current = (
    await readSubscriptionsFile(path, fileSchema, options.logger ?? pino({ level: 'silent' }))
  ).filter((item) => endpointRefusal(item.endpoint, options) === undefined);
  let queue: Promise<unknown> = Promise.resolve();

  /** Runs `change` on the list as it is once earlier changes are written; writes what it returns, if new. */
  function mutate<T>(change: (list: readonly StoredPushSubscription[]) => [StoredPushSubscription[], T]) {
    const run = queue.then(async () => {
      const [next, result] = change(current);
      if (next.length !== current.length || next.some((item, index) => item !== current[index])) {
        await writeSubscriptionsFile(path, next);
        current = next;
      }
      return result;
    });
    queue = run.catch(() => undefined);
    return run;
  }

  return {
    list: () => current,
    add(sessionId, subscription) {
      const parsed = inputSchema.safeParse(subscription);
      if (!parsed.success) {
        const why = summarizeIssues(parsed.error.issues);
        return Promise.reject(new CatalystError('INVALID_ARGUMENT', `not a push subscription: ${why}`));
      }
      const { endpoint, keys } = parsed.data;
      const refusal = endpointRefusal(endpoint, options);
      if (refusal !== undefined) return Promise.reject(new CatalystError('UNSAFE_ARGUMENT', refusal));
      return mutate((list) => {
        checkId(BrowserSessionIdSchema, sessionId, 'a browser session id');
        const replaced = list.find((item) => item.endpoint === endpoint);
        if (replaced !== undefined) checkTakeOver(replaced, { sessionId, keys });
        const added: StoredPushSubscription = {
          sessionId,
          endpoint,
          keys,
          createdAt: new Date(now()).toISOString(),
          mutedIdeas: replaced?.mutedIdeas ?? [],
        };
        const others = list.filter((item) => item.endpoint !== endpoint);
        const ofSession = others.filter((item) => item.sessionId === sessionId);
        const dropped = new Set(ofSession.slice(0, Math.max(0, ofSession.length - MAX_PER_SESSION + 1)));
        return [[...others.filter((item) => !dropped.has(item)), added], added];
      });
    },
    remove(endpoint, { sessionId } = {}) {
      const isRemoved = (item: StoredPushSubscription) =>
        item.endpoint === endpoint && (sessionId === undefined || item.sessionId === sessionId);
      return mutate((list) => [list.filter((item) => !isRemoved(item)), list.some(isRemoved)]);
    },
    removeSession(sessionId) {
      return mutate((list) => {
        const kept = list.filter((item) => item.sessionId !== sessionId);
        return [kept, list.length - kept.length];
      });
    },
    setMuted(change) {
      return mutate((list) => {
        checkId(IdeaIdSchema, change.ideaId, 'an idea id');
        const index = list.findIndex(
          (item) => item.endpoint === change.endpoint && item.sessionId === change.sessionId,
        );
        const target = list[index];
        if (target === undefined) return [[...list], false];
        const mutedIdeas = withMute(target.mutedIdeas, change);
        if (mutedIdeas === target.mutedIdeas) return [[...list], true];
        return [list.map((item, at) => (at === index ? { ...target, mutedIdeas } : item)), true];
      });
    },
  };
}

/** The mutes after `change`; the same array when nothing changes. Sorted, so the file is stable. */
function withMute(mutedIdeas: string[], change: MuteChange): string[] {
  const isMuted = mutedIdeas.includes(change.ideaId);
  if (isMuted === change.isMuted) return mutedIdeas;
  if (!change.isMuted) return mutedIdeas.filter((id) => id !== change.ideaId);
  if (mutedIdeas.length >= MAX_MUTED_IDEAS) {
    throw new CatalystError('INVALID_ARGUMENT', `a device mutes at most ${MAX_MUTED_IDEAS} ideas`);
  }
  return [...mutedIdeas, change.ideaId].sort();
}

/**
 * Another session's subscription at the same endpoint passes to this one only with the same keys: the same browser
 * signed in again (its cookie cleared). Other keys are someone else's, who learnt the endpoint: taking it would
 * make the device's pushes unreadable to it and hand its mutes over.
 */
function checkTakeOver(
  kept: StoredPushSubscription,
  wanted: Pick<StoredPushSubscription, 'sessionId' | 'keys'>,
): void {
  if (kept.sessionId === wanted.sessionId) return;
  if (isSameSecret(kept.keys.auth, wanted.keys.auth) && kept.keys.p256dh === wanted.keys.p256dh) return;
  throw new CatalystError(
    'INVALID_ARGUMENT',
    'That push endpoint is another browser’s subscription, with other keys; this browser cannot take it over.',
  );
}

/** The auth secret, compared in constant time (both are 22 base64url characters: PushKeysSchema). */
function isSameSecret(kept: string, wanted: string): boolean {
  const [a, b] = [Buffer.from(kept), Buffer.from(wanted)];
  return a.length === b.length && timingSafeEqual(a, b);
}

/** What is written must read back: an id that is not one would make the file refused at the next start. */
function checkId(schema: z.ZodType<string>, id: string, what: string): void {
  if (!schema.safeParse(id).success) throw new CatalystError('INVALID_ARGUMENT', `not ${what}`);
}

async function readSubscriptionsFile(
  path: string,
  schema: ReturnType<typeof pushSubscriptionsFileSchema>,
  logger: Logger,
): Promise<StoredPushSubscription[]> {
  const text = await readPrivateFile(path, 'the push subscriptions file');
  const file = await parseOwnJsonFile({ path, text, schema, what: 'the push subscriptions file', logger });
  return file?.subscriptions ?? [];
}

async function writeSubscriptionsFile(path: string, subscriptions: StoredPushSubscription[]): Promise<void> {
  try {
    await writeFileAtomically(path, `${JSON.stringify({ version: 1, subscriptions }, null, 2)}\n`);
  } catch (error) {
    throw new CatalystError('FILE_ERROR', `cannot write the push subscriptions file ${path}`, {
      cause: error,
    });
  }
}
