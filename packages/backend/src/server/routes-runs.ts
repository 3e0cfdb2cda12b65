import { MAX_RUN_WAIT_MS, RunIdSchema } from '@catalyst/protocol';
import { Router } from 'express';
import { z } from 'zod';
import type { IdeaService } from '../service/idea-service.ts';
import { parseQuery, parseUrlId } from './request-parsing.ts';

/**
 * /api/runs (issue 12): a run by its id, for programmatic clients. `GET /:runId?waitMs=N` holds the request until
 * the run ends or N ms pass (at most MAX_RUN_WAIT_MS), so a client loops on it instead of polling fast.
 */

const RunQuerySchema = z.strictObject({
  waitMs: z
    .string()
    .regex(/^\d{1,6}$/, 'must be a whole number of milliseconds')
    .transform(Number)
    .pipe(z.int().max(MAX_RUN_WAIT_MS))
    .default(0),
});

function parseRunId(value: unknown): string {
  return parseUrlId(
    RunIdSchema,
    value,
    'The run id in the URL is not valid: run ids look like run-<16 letters and digits>-<uuid>.',
  );
}

export function createRunsRouter(service: IdeaService): Router {
  const router = Router();
  router.get('/:runId', async (request, response) => {
    const runId = parseRunId(request.params.runId);
    const { waitMs } = parseQuery(RunQuerySchema, request.query);
    response.json({ run: await service.getRun(runId, waitMs) });
  });
  router.post('/:runId/cancel', async (request, response) => {
    const runId = parseRunId(request.params.runId);
    response.status(202).json({ run: await service.cancelRunById(runId) });
  });
  return router;
}
