import {
  CreateIdeaBodySchema,
  DEFAULT_RUN_LIST_LIMIT,
  MAX_RUN_LIST_LIMIT,
  StartAutopilotBodySchema,
  StartRunBodySchema,
  UpdateIdeaBodySchema,
  type RelayEvent,
} from '@catalyst/protocol';
import { Router } from 'express';
import { z } from 'zod';
import { CatalystError } from '../core/catalyst-error.ts';
import type { IdeaService } from '../service/idea-service.ts';
import { parseBody, parseIdeaId, parseQuery } from './request-parsing.ts';

/** /api/ideas: every handler parses what it reads first, so the service only ever sees typed values. */

export const DEFAULT_EVENTS_LIMIT = 1000;
export const MAX_EVENTS_LIMIT = 10_000;

const wholeNumber = z
  .string()
  .regex(/^\d{1,15}$/, 'must be a whole number')
  .transform(Number);

const EventsQuerySchema = z.strictObject({
  sinceSeq: wholeNumber.default(0),
  limit: wholeNumber.pipe(z.int().min(1).max(MAX_EVENTS_LIMIT)).default(DEFAULT_EVENTS_LIMIT),
});

const RunsQuerySchema = z.strictObject({
  limit: wholeNumber.pipe(z.int().min(1).max(MAX_RUN_LIST_LIMIT)).default(DEFAULT_RUN_LIST_LIMIT),
});

export function createIdeasRouter(service: IdeaService): Router {
  const router = Router();
  router.get('/', async (_request, response) => {
    response.json({ ideas: await service.listIdeas() });
  });
  router.post('/', async (request, response) => {
    const body = parseBody(CreateIdeaBodySchema, request.body);
    response.status(201).json({ idea: await service.createIdea(body) });
  });
  router.get('/:id', async (request, response) => {
    response.json({ idea: await service.getIdea(parseIdeaId(request.params.id)) });
  });
  router.patch('/:id', async (request, response) => {
    const id = parseIdeaId(request.params.id);
    const body = parseBody(UpdateIdeaBodySchema, request.body);
    response.json({ idea: await service.updateIdea(id, body) });
  });
  router.delete('/:id', async (request, response) => {
    await service.deleteIdea(parseIdeaId(request.params.id));
    response.status(204).end();
  });
  router.get('/:id/events', async (request, response) => {
    const id = parseIdeaId(request.params.id);
    const { sinceSeq, limit } = parseQuery(EventsQuerySchema, request.query);
    response.json({ events: await service.history(id, sinceSeq, limit) });
  });
  router.post('/:id/runs', async (request, response) => {
    const id = parseIdeaId(request.params.id);
    const { mode, message, maxBudgetUsd } = parseBody(StartRunBodySchema, request.body);
    const { runId } = await service.startRun(id, mode, message, { maxBudgetUsd });
    response.status(202).json({ run: await service.getRun(runId) });
  });
  router.get('/:id/runs', async (request, response) => {
    const id = parseIdeaId(request.params.id);
    const { limit } = parseQuery(RunsQuerySchema, request.query);
    response.json({ runs: await service.listRuns(id, limit) });
  });
  router.post('/:id/autopilot', async (request, response) => {
    const id = parseIdeaId(request.params.id);
    const body = parseBody(StartAutopilotBodySchema, request.body);
    response.status(202).json({ autopilot: await service.startAutopilot(id, body) });
  });
  router.get('/:id/autopilot', async (request, response) => {
    response.json({ autopilot: await service.latestAutopilot(parseIdeaId(request.params.id)) });
  });
  router.get('/:id/questions', async (request, response) => {
    const id = parseIdeaId(request.params.id);
    response.json({ questions: questionsOf(await service.pendingPrompts(id)) });
  });
  router.get('/:id/questions/:questionId', async (request, response) => {
    const id = parseIdeaId(request.params.id);
    const questionId = request.params.questionId;
    const question = questionsOf(await service.pendingPrompts(id)).find((q) => q.questionId === questionId);
    if (question === undefined) {
      throw new CatalystError('QUESTION_NOT_FOUND', 'That question is not waiting for an answer.');
    }
    response.json({ question });
  });
  return router;
}

function questionsOf(events: RelayEvent[]): Extract<RelayEvent, { type: 'claude:question' }>[] {
  return events.flatMap((event) => (event.type === 'claude:question' ? [event] : []));
}
