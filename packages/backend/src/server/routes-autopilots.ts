import { AutopilotIdSchema } from '@catalyst/protocol';
import { Router } from 'express';
import { parseUrlId } from './request-parsing.ts';
import type { IdeaService } from '../service/idea-service.ts';

/** /api/autopilots (issue 12): an autopilot by its id; an idea's own are under /api/ideas/:id/autopilot. */

function parseAutopilotId(value: unknown): string {
  return parseUrlId(
    AutopilotIdSchema,
    value,
    'The autopilot id in the URL is not valid: autopilot ids look like ap-<16 letters and digits>-<uuid>.',
  );
}

export function createAutopilotsRouter(service: IdeaService): Router {
  const router = Router();
  router.get('/:autopilotId', async (request, response) => {
    const autopilotId = parseAutopilotId(request.params.autopilotId);
    response.json({ autopilot: await service.getAutopilot(autopilotId) });
  });
  router.post('/:autopilotId/cancel', async (request, response) => {
    const autopilotId = parseAutopilotId(request.params.autopilotId);
    response.status(202).json({ autopilot: await service.cancelAutopilot(autopilotId) });
  });
  return router;
}
