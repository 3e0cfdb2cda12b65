import type { ClientFrame, IdeaId, ServerFrame, SubscribedFrame } from '@catalyst/protocol';
import type { Logger } from 'pino';
import type { IdeaListener, IdeaSubscription, IdeasPort } from '../service/ports.ts';

/**
 * One connection's subscriptions, at most one per idea. Subscribing an idea again replaces the previous
 * subscription; a subscribe that is replaced (or unsubscribed, or the connection dropped) while the service is
 * still setting it up forwards nothing more, gets no `subscribed` frame, and is unsubscribed as soon as it exists.
 */

export type SubscribeFrame = Extract<ClientFrame, { type: 'subscribe' }>;

export interface SubscriptionSet {
  /** Resolves after the `subscribed` frame was sent; rejects with the service's error. */
  subscribe(frame: SubscribeFrame): Promise<void>;
  release(ideaId: IdeaId): void;
  releaseAll(): void;
}

export interface SubscriptionSetOptions {
  ideas: IdeasPort;
  logger: Logger;
  /** Live frames (relay events and live-only text): past the session's buffer bound the client is dropped as too slow. */
  send: (frame: ServerFrame) => void;
  /** Replayed frames: sent at the pace the client reads them (resolves once the socket has room again). */
  sendPaced: (frame: ServerFrame) => Promise<void>;
}

/** History is replayed in pages, so a client that missed days of events is neither refused nor a memory spike. */
const REPLAY_PAGE_EVENTS = 200;

/** `active` turns false the moment a subscription is replaced or dropped, even while subscribe() is pending. */
interface Slot {
  active: boolean;
  subscription?: IdeaSubscription;
}

export function createSubscriptionSet(options: SubscriptionSetOptions): SubscriptionSet {
  const { ideas, logger, send, sendPaced } = options;
  const slots = new Map<IdeaId, Slot>();
  const drop = (ideaId: IdeaId, slot: Slot): void => {
    slot.active = false;
    if (slots.get(ideaId) === slot) slots.delete(ideaId);
  };
  const release = (ideaId: IdeaId): void => {
    const slot = slots.get(ideaId);
    if (slot === undefined) return;
    drop(ideaId, slot);
    if (slot.subscription !== undefined) endSubscription(slot.subscription, ideaId, logger);
  };
  const subscribe = async (frame: SubscribeFrame): Promise<void> => {
    release(frame.ideaId);
    const slot: Slot = { active: true };
    slots.set(frame.ideaId, slot);
    const listener: IdeaListener = (frame) => {
      if (slot.active) send(frame);
    };
    const replay = replayHistory({ ideas, sendPaced, slot }, frame);
    const { replayedUpTo, isReset } = await replay.catch((error: unknown) => {
      drop(frame.ideaId, slot);
      throw error;
    });
    if (!isActive(slot)) return;
    const subscription = await ideas
      .subscribe(frame.ideaId, replayedUpTo, listener)
      .catch((error: unknown) => {
        drop(frame.ideaId, slot);
        throw error;
      });
    if (!isActive(slot)) {
      endSubscription(subscription, frame.ideaId, logger);
      return;
    }
    slot.subscription = subscription;
    send(toSubscribedFrame(frame, subscription, isReset));
    // A client that reconnects mid-question must be able to answer it, whatever `sinceSeq` it replayed from.
    for (const event of subscription.pending) send(event);
  };
  const releaseAll = (): void => {
    for (const ideaId of [...slots.keys()]) release(ideaId);
  };
  return { subscribe, release, releaseAll };
}

/**
 * Sends the history after `sinceSeq` page by page, waiting for the socket to drain between frames when it is
 * full; returns the last seq sent, from which the live subscription picks up (catching any event appended since).
 * A `sinceSeq` past the server's newest seq (a history lost or replaced since the client saw it) is stale: the
 * whole history is replayed and the `subscribed` frame says `reset`, so the client keeps that replay in place of
 * what it held. "Newest" here is the history's reservation-aware seq (after a crash it sits up to a reservation
 * block above the newest event: a browser may have seen a number up to it), not the `subscribed` frame's
 * `lastSeq`, which is the newest event's.
 */
async function replayHistory(
  context: { ideas: IdeasPort; sendPaced: (frame: ServerFrame) => Promise<void>; slot: Slot },
  frame: SubscribeFrame,
): Promise<{ replayedUpTo: number; isReset: boolean }> {
  const asked = frame.sinceSeq ?? 0;
  const isReset = asked > 0 && asked > (await context.ideas.lastSeq(frame.ideaId));
  let since = isReset ? 0 : asked;
  for (;;) {
    // Each page is a bounded ranged read (event-history.ts); only an empty page means the end.
    const page = await context.ideas.history(frame.ideaId, since, REPLAY_PAGE_EVENTS);
    for (const event of page) {
      if (!context.slot.active) return { replayedUpTo: since, isReset };
      await context.sendPaced(event);
      since = event.seq;
    }
    if (page.length === 0) return { replayedUpTo: since, isReset };
  }
}

/** Read through a call: TypeScript would otherwise narrow `active` across the awaits that can change it. */
function isActive(slot: Slot): boolean {
  return slot.active;
}

/** `lastSeq` is the seq of the newest event the replay holds (ws-frames.ts), not the history's reservation. */
function toSubscribedFrame(
  frame: SubscribeFrame,
  subscription: IdeaSubscription,
  isReset: boolean,
): SubscribedFrame {
  const { lastSeq, running } = subscription;
  const requestId = frame.requestId === undefined ? {} : { requestId: frame.requestId };
  const reset = isReset ? { reset: true as const } : {};
  return { type: 'subscribed', ideaId: frame.ideaId, lastSeq, running, ...requestId, ...reset };
}

/** One failing unsubscribe (a service bug) must not keep the others from running. */
function endSubscription(subscription: IdeaSubscription, ideaId: IdeaId, logger: Logger): void {
  try {
    subscription.unsubscribe();
  } catch (error) {
    logger.error({ err: error, ideaId }, 'unsubscribe failed');
  }
}
