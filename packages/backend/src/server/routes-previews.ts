import { Router } from 'express';
import { PreviewPortSchema } from '@catalyst/protocol';
import { CatalystError } from '../core/catalyst-error.ts';
import type { IdeaService } from '../service/idea-service.ts';
import { parseIdeaId } from './request-parsing.ts';

/**
 * /api/ideas/:id/preview (issue 14): the idea's preview, its log, and the ports its processes listen on. The
 * preview itself is served by a server of its own (preview-proxy.ts), never under /api; its links carry the Host
 * this request was made to.
 */
export function createPreviewsRouter(service: IdeaService): Router {
  const router = Router({ mergeParams: true });
  router.get('/:id/preview', async (request, response) => {
    response.json(await service.preview(parseIdeaId(request.params.id), request.headers.host));
  });
  router.post('/:id/preview/start', async (request, response) => {
    response.json(await service.startPreview(parseIdeaId(request.params.id), request.headers.host));
  });
  router.post('/:id/preview/stop', async (request, response) => {
    response.json(await service.stopPreview(parseIdeaId(request.params.id), request.headers.host));
  });
  router.get('/:id/preview/log', async (request, response) => {
    response.json(await service.previewLog(parseIdeaId(request.params.id)));
  });
  router.get('/:id/preview/ports', async (request, response) => {
    response.json({ ports: await service.listeningPorts(parseIdeaId(request.params.id)) });
  });
  router.post('/:id/preview/ports/:port/link', async (request, response) => {
    const id = parseIdeaId(request.params.id);
    const port = PreviewPortSchema.safeParse(Number(request.params.port));
    if (!/^\d{1,5}$/.test(request.params.port) || !port.success) {
      throw new CatalystError(
        'INVALID_ARGUMENT',
        `${JSON.stringify(request.params.port)} is not a TCP port.`,
      );
    }
    response.json(await service.previewPortLink(id, port.data, request.headers.host));
  });
  return router;
}
