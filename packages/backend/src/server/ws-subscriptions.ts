import type { ClientFrame, IdeaId, RelayEvent, ServerFrame, SubscribedFrame } from '@catalyst/protocol';
import type { Logger } from 'pino';
import type { IdeaService, IdeaSubscription } from '../service/idea-service.ts';

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
  service: IdeaService;
  logger: Logger;
  send: (frame: ServerFrame) => void;
}

/** `active` turns false the moment a subscription is replaced or dropped, even while subscribe() is pending. */
interface Slot {
  active: boolean;
  subscription?: IdeaSubscription;
}

export function createSubscriptionSet(options: SubscriptionSetOptions): SubscriptionSet {
  const { service, logger, send } = options;
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
    const listener = (event: RelayEvent): void => {
      if (slot.active) send(event);
    };
    const subscription = await service
      .subscribe(frame.ideaId, frame.sinceSeq ?? 0, listener)
      .catch((error: unknown) => {
        drop(frame.ideaId, slot);
        throw error;
      });
    if (!slot.active) {
      endSubscription(subscription, frame.ideaId, logger);
      return;
    }
    slot.subscription = subscription;
    send(toSubscribedFrame(frame, subscription));
  };
  const releaseAll = (): void => {
    for (const ideaId of [...slots.keys()]) release(ideaId);
  };
  return { subscribe, release, releaseAll };
}

function toSubscribedFrame(frame: SubscribeFrame, subscription: IdeaSubscription): SubscribedFrame {
  const { lastSeq, running } = subscription;
  const requestId = frame.requestId === undefined ? {} : { requestId: frame.requestId };
  return { type: 'subscribed', ideaId: frame.ideaId, lastSeq, running, ...requestId };
}

/** One failing unsubscribe (a service bug) must not keep the others from running. */
function endSubscription(subscription: IdeaSubscription, ideaId: IdeaId, logger: Logger): void {
  try {
    subscription.unsubscribe();
  } catch (error) {
    logger.error({ err: error, ideaId }, 'unsubscribe failed');
  }
}
