/**
 * Which devices a push about an idea goes to (issue 29): every subscription, except those that muted the idea
 * and those of a browser session that shows the idea in a visible tab right now (it sees the card already; its
 * in-tab notification is enough). Pure: the visible tabs are told by the caller.
 */

export interface PushRecipient {
  readonly sessionId: string;
  readonly mutedIdeas: readonly string[];
}

export function pickPushRecipients<T extends PushRecipient>(
  subscriptions: readonly T[],
  ideaId: string,
  sessionsViewingIdea: ReadonlySet<string>,
): T[] {
  return subscriptions.filter(
    (subscription) =>
      !sessionsViewingIdea.has(subscription.sessionId) && !subscription.mutedIdeas.includes(ideaId),
  );
}
