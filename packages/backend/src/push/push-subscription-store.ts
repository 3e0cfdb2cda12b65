import { join } from 'node:path';
import type { z } from 'zod';
import { BrowserSessionIdSchema, IdeaIdSchema } from '@catalyst/protocol';
import { CatalystError } from '../core/catalyst-error.ts';
import { summarizeIssues } from '../server/issue-summary.ts';
import { readPrivateFile } from '../server/private-file.ts';
import { writeFileAtomically } from '../service/atomic-file.ts';
import {
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
 * happen. A file that is not what Catalyst writes is an error, never silently replaced.
 */

export const PUSH_SUBSCRIPTIONS_FILE = 'push-subscriptions.json';
/** More than a browser ever makes for one login (one per service worker registration); the oldest goes first. */
const MAX_PER_SESSION = 10;

export interface PushSubscriptionStoreOptions extends EndpointRule {
  configDir: string;
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
   * replaced, keeping its mutes, which are the device's. INVALID_ARGUMENT when it is not a subscription.
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
  let current = await readSubscriptionsFile(path, fileSchema);
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
      return mutate((list) => {
        checkId(BrowserSessionIdSchema, sessionId, 'a browser session id');
        const replaced = list.find((item) => item.endpoint === endpoint);
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

/** What is written must read back: an id that is not one would make the file refused at the next start. */
function checkId(schema: z.ZodType<string>, id: string, what: string): void {
  if (!schema.safeParse(id).success) throw new CatalystError('INVALID_ARGUMENT', `not ${what}`);
}

async function readSubscriptionsFile(
  path: string,
  schema: ReturnType<typeof pushSubscriptionsFileSchema>,
): Promise<StoredPushSubscription[]> {
  const text = await readPrivateFile(path, 'the push subscriptions file');
  if (text === undefined) return [];
  const parsed = schema.safeParse(parseJson(text));
  if (!parsed.success) {
    throw new CatalystError(
      'CONFIG_INVALID',
      `the push subscriptions file ${path} is not valid (${summarizeIssues(parsed.error.issues)}); ` +
        'delete it to stop every push (each device can turn notifications on again)',
    );
  }
  return parsed.data.subscriptions;
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

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
