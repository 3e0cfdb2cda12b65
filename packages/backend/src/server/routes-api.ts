import { GUARDED_API, openApiDocument } from '@catalyst/protocol';
import { Router } from 'express';
import type { Services } from '../service/ports.ts';
import type { Auth } from '../auth/auth.ts';
import { asideHandlers } from '../asides/edge/api-asides.ts';
import { bindApi } from './api-binding.ts';
import { fileHandlers } from '../files/edge/api-files.ts';
import { hostHandlers } from '../hosts/edge/api-hosts.ts';
import { ideaHandlers } from '../ideas/edge/api-ideas.ts';
import { pairingHandlers, type PairingLinks } from '../auth/api-pairing.ts';
import { previewHandlers } from '../previews/edge/api-previews.ts';
import { pushHandlers } from '../push/edge/api-push.ts';
import type { WebPush } from '../push/open-web-push.ts';
import { reviewHandlers } from '../checkpoints/edge/api-reviews.ts';
import { runHandlers } from '../runs/edge/api-runs.ts';
import { loginHandlers, type LoginRouteOptions } from '../auth/api-logins.ts';
import { sendError } from './http-errors.ts';

/**
 * The REST API under /api, behind the token check (http-app.ts): every route of the contract (protocol
 * api-contract.ts) but the login routes (routes-login.ts), bound to the handlers of the capability it serves. Lists are wrapped (`{ ideas }`, `{ hosts }`,
 * `{ events }`) and a single idea comes as `{ idea }`, so a response can grow fields without breaking clients. An
 * unknown route answers 404 in the API's own error shape.
 */

export interface ApiRouteOptions extends LoginRouteOptions {
  readonly pairing: PairingLinks;
  readonly push: Pick<WebPush, 'publicKey' | 'subscriptions'>;
}

export function createApiRouter(services: Services, auth: Auth, options: ApiRouteOptions): Router {
  const router = Router();
  // Made on the first request for it, not at every start (about 25 ms of JSON Schema).
  let document: ReturnType<typeof openApiDocument> | undefined;
  bindApi(
    router,
    GUARDED_API,
    {
      health: () => ({ ok: true as const }),
      openapi: () => (document ??= openApiDocument()),
      ...loginHandlers(auth, options),
      ...pairingHandlers(options.pairing),
      ...pushHandlers(options.push, (request) => auth.loginOf(request)),
      ...ideaHandlers(services),
      ...hostHandlers(services.hosts),
      ...runHandlers(services),
      ...asideHandlers(services.asides),
      ...fileHandlers(services.files),
      ...reviewHandlers(services.reviews),
      ...previewHandlers(services.previews),
      openTerminals: ({ params }) => services.terminals.openCount(params.id),
    },
    '/api',
  );
  router.use((request, response) => {
    sendError(response, {
      code: 'INVALID_ARGUMENT',
      message: `There is no ${request.method} ${request.baseUrl}${request.path} in Catalyst's API.`,
      status: 404,
    });
  });
  return router;
}
