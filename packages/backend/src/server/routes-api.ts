import { Router } from 'express';
import type { IdeaService } from '../service/idea-service.ts';
import { sendError } from './http-errors.ts';
import { createIdeasRouter } from './routes-ideas.ts';
import { createRunsRouter } from './routes-runs.ts';
import { createAutopilotsRouter } from './routes-autopilots.ts';
import { createCheckpointsRouter } from './routes-checkpoints.ts';
import { createPreviewsRouter } from './routes-previews.ts';

/**
 * The REST API under /api, behind the token check (http-app.ts). Lists are wrapped (`{ ideas }`, `{ hosts }`,
 * `{ events }`) and a single idea comes as `{ idea }`, so a response can grow fields without breaking clients.
 * An unknown route answers 404 in the API's own error shape.
 */

export function createApiRouter(service: IdeaService): Router {
  const router = Router();
  router.get('/health', (_request, response) => {
    response.json({ ok: true });
  });
  router.get('/hosts', async (_request, response) => {
    response.json({ hosts: await service.hosts() });
  });
  router.use('/ideas', createIdeasRouter(service));
  router.use('/ideas', createCheckpointsRouter(service));
  router.use('/ideas', createPreviewsRouter(service));
  router.use('/runs', createRunsRouter(service));
  router.use('/autopilots', createAutopilotsRouter(service));
  router.use((request, response) => {
    sendError(response, {
      code: 'INVALID_ARGUMENT',
      message: `There is no ${request.method} ${request.baseUrl}${request.path} in Catalyst's API.`,
      status: 404,
    });
  });
  return router;
}
