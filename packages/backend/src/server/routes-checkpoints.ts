import { Router } from 'express';
import { z } from 'zod';
import type { IdeaService } from '../service/idea-service.ts';
import { parseIdeaId, parseQuery } from './request-parsing.ts';

/**
 * /api/ideas/:id/checkpoints and /api/ideas/:id/files (issue 13). A commit in a URL is checked by the service (400
 * malformed, 404 not the idea's checkpoint); a path arrives in the query string and is checked there too (400
 * INVALID_PATH), then again on the host, resolved.
 */

/** Paths are at most 4,096 bytes (core/project-path.ts); the query's bound only keeps junk out. */
const PathSchema = z.string().max(16_384);
const ListQuerySchema = z.strictObject({ path: PathSchema.default('') });
const ContentQuerySchema = z.strictObject({
  path: PathSchema,
  at: z.string().max(64).optional(),
});
const HistoryQuerySchema = z.strictObject({ path: PathSchema });

export function createCheckpointsRouter(service: IdeaService): Router {
  const router = Router({ mergeParams: true });
  router.get('/:id/checkpoints', async (request, response) => {
    response.json({ checkpoints: await service.listCheckpoints(parseIdeaId(request.params.id)) });
  });
  router.get('/:id/checkpoints/:commit/diff', async (request, response) => {
    const id = parseIdeaId(request.params.id);
    response.json(await service.checkpointDiff(id, request.params.commit));
  });
  router.post('/:id/checkpoints/:commit/restore', async (request, response) => {
    const id = parseIdeaId(request.params.id);
    response.json({ checkpoint: await service.restoreCheckpoint(id, request.params.commit) });
  });
  router.get('/:id/files', async (request, response) => {
    const { path } = parseQuery(ListQuerySchema, request.query);
    response.json(await service.listFiles(parseIdeaId(request.params.id), path));
  });
  router.get('/:id/files/content', async (request, response) => {
    const { path, at } = parseQuery(ContentQuerySchema, request.query);
    response.json(await service.fileContent(parseIdeaId(request.params.id), path, at));
  });
  router.get('/:id/files/history', async (request, response) => {
    const { path } = parseQuery(HistoryQuerySchema, request.query);
    const id = parseIdeaId(request.params.id);
    response.json({ path, checkpoints: await service.fileHistory(id, path) });
  });
  return router;
}
