import { z } from 'zod';
import { ErrorCodeSchema } from './error-codes.ts';
import { IdeaIdSchema, ModelNameSchema, ideaNamingIdPattern } from './idea.ts';
import type { RelayEvent } from './relay-events.ts';

/**
 * Question asides (issue 30): a question put to a read-only fork of the idea's Claude session (`claude -p --resume
 * <session> --fork-session --no-session-persistence`, read and search tools only), answered from the conversation so
 * far while a run goes or not. The build, its session and its transcript are untouched. An aside's view is read from
 * the idea's history (its `aside:*` events), so it survives restarts; its id names its idea, like a run's.
 */

export const ASIDE_ID_PATTERN = ideaNamingIdPattern('aside');
export const AsideIdSchema = z.string().regex(ASIDE_ID_PATTERN, 'not a valid aside id');

/** How many asides one idea may have going at once; one more is refused with TOO_MANY_ASIDES. */
export const MAX_ASIDES_PER_IDEA = 3;
export const MAX_ASIDE_QUESTION_CHARS = 20_000;

/** `POST /api/ideas/:id/asides`: the question, and a model other than the idea's small one. */
export const AskAsideBodySchema = z.strictObject({
  question: z.string().trim().min(1, 'the question is empty').max(MAX_ASIDE_QUESTION_CHARS),
  model: ModelNameSchema.optional(),
});
export type AskAsideBody = z.infer<typeof AskAsideBodySchema>;

export const AsideStateSchema = z.enum(['asking', 'answered', 'failed']);
export type AsideState = z.infer<typeof AsideStateSchema>;

export const AsideViewSchema = z.object({
  id: z.string(),
  ideaId: IdeaIdSchema,
  question: z.string(),
  model: z.string(),
  state: AsideStateSchema,
  askedAt: z.string(),
  endedAt: z.string().optional(),
  /** Claude's answer, as markdown. */
  answer: z.string().optional(),
  costUsd: z.number().nonnegative().optional(),
  durationMs: z.number().nonnegative().optional(),
  error: z.object({ code: ErrorCodeSchema, message: z.string() }).optional(),
});
export type AsideView = z.infer<typeof AsideViewSchema>;

export const AsideResponseSchema = z.object({ aside: AsideViewSchema });
export const AsideListResponseSchema = z.object({ asides: z.array(AsideViewSchema) });

export type AsideEvent = Extract<RelayEvent, { type: `aside:${string}` }>;

export function isAsideEvent(event: RelayEvent): event is AsideEvent {
  return event.type === 'aside:asked' || event.type === 'aside:answered' || event.type === 'aside:failed';
}

/**
 * The asides the events tell of, oldest first: each `aside:asked` with its ending, if it came. An ending whose
 * asking is not among the events (a page of the history that starts later) is left out.
 */
export function asideViewsOf(events: readonly RelayEvent[]): AsideView[] {
  const views = new Map<string, AsideView>();
  for (const event of events) {
    if (!isAsideEvent(event)) continue;
    if (event.type === 'aside:asked') {
      views.set(event.asideId, {
        id: event.asideId,
        ideaId: event.ideaId,
        question: event.question,
        model: event.model,
        state: 'asking',
        askedAt: event.ts,
      });
      continue;
    }
    const view = views.get(event.asideId);
    if (view === undefined) continue;
    views.set(event.asideId, { ...view, ...endingOf(event) });
  }
  return [...views.values()];
}

function endingOf(event: Exclude<AsideEvent, { type: 'aside:asked' }>): Partial<AsideView> {
  switch (event.type) {
    case 'aside:answered':
      return {
        state: 'answered',
        endedAt: event.ts,
        answer: event.text,
        costUsd: event.costUsd,
        durationMs: event.durationMs,
      };
    case 'aside:failed':
      return {
        state: 'failed',
        endedAt: event.ts,
        error: event.error,
        ...(event.costUsd === undefined ? {} : { costUsd: event.costUsd }),
      };
  }
}
