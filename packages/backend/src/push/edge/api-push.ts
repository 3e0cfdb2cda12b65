import type { IncomingMessage } from 'node:http';
import type { Api, PushSubscriptionView } from '@catalyst/protocol';
import { CatalystError } from '../../core/catalyst-error.ts';
import type { WebPush } from '../open-web-push.ts';
import type { StoredPushSubscription } from '../push-subscription-schema.ts';
import type { ApiHandlers } from '../../server/api-binding.ts';

/**
 * `/api/push` (issue 29): the VAPID key a page subscribes with, and each browser session's subscriptions (the
 * devices that get pushes) with the ideas muted on them. A subscription belongs to a browser session: a Bearer
 * client has none, and signing a browser out forgets its subscriptions (app.ts).
 */

type PushRoutes = 'pushKey' | 'addPushSubscription' | 'removePushSubscription' | 'mutePushIdea';

export function pushHandlers(
  push: Pick<WebPush, 'publicKey' | 'subscriptions'>,
  loginOf: (request: IncomingMessage) => { id: string } | undefined,
): ApiHandlers<Pick<Api, PushRoutes>> {
  const sessionIdOf = (request: IncomingMessage): string => {
    const session = loginOf(request);
    if (session === undefined) {
      throw new CatalystError(
        'INVALID_ARGUMENT',
        'Only a signed-in browser subscribes to pushes; an API client’s token has no device to push to.',
      );
    }
    return session.id;
  };
  return {
    pushKey: () => ({ publicKey: push.publicKey }),
    addPushSubscription: async ({ body }, { request }) => ({
      subscription: viewOf(await push.subscriptions.add(sessionIdOf(request), body)),
    }),
    removePushSubscription: async ({ body }, { request }) => {
      await push.subscriptions.remove(body.endpoint, { sessionId: sessionIdOf(request) });
    },
    mutePushIdea: async ({ params, body }, { request }) => {
      const sessionId = sessionIdOf(request);
      const change = { sessionId, endpoint: body.endpoint, ideaId: params.id, isMuted: body.isMuted };
      const isChanged = await push.subscriptions.setMuted(change);
      const stored = push.subscriptions
        .list()
        .find((candidate) => candidate.sessionId === sessionId && candidate.endpoint === body.endpoint);
      if (!isChanged || stored === undefined) {
        throw new CatalystError(
          'INVALID_ARGUMENT',
          'This browser has no push subscription at that endpoint.',
        );
      }
      return { subscription: viewOf(stored) };
    },
  };
}

function viewOf(stored: StoredPushSubscription): PushSubscriptionView {
  return { endpoint: stored.endpoint, createdAt: stored.createdAt, mutedIdeas: [...stored.mutedIdeas] };
}
