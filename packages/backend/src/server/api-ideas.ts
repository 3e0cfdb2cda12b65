import type { Api, QuestionEvent, RelayEvent } from '@catalyst/protocol';
import { CatalystError } from '../core/catalyst-error.ts';
import type { Services } from '../service/ports.ts';
import type { ApiHandlers } from './api-binding.ts';

/** /api/ideas: ideas, their history and the questions waiting in their runs. */

type IdeaRoutes =
  | 'listIdeas'
  | 'createIdea'
  | 'getIdea'
  | 'updateIdea'
  | 'deleteIdea'
  | 'events'
  | 'listQuestions'
  | 'getQuestion';

export function ideaHandlers({
  ideas,
  runs,
}: Pick<Services, 'ideas' | 'runs'>): ApiHandlers<Pick<Api, IdeaRoutes>> {
  return {
    listIdeas: async () => ({ ideas: await ideas.listIdeas() }),
    createIdea: async ({ body }) => ({ idea: await ideas.createIdea(body) }),
    getIdea: async ({ params }) => ({ idea: await ideas.getIdea(params.id) }),
    updateIdea: async ({ params, body }) => ({ idea: await ideas.updateIdea(params.id, body) }),
    deleteIdea: async ({ params }) => {
      await ideas.deleteIdea(params.id);
    },
    events: async ({ params, query }) => ({
      events: await ideas.history(params.id, query.sinceSeq, query.limit),
    }),
    listQuestions: async ({ params }) => ({
      questions: questionsOf(await runs.pendingPrompts(params.id)),
    }),
    getQuestion: async ({ params }) => {
      const questions = questionsOf(await runs.pendingPrompts(params.id));
      const question = questions.find((q) => q.questionId === params.questionId);
      if (question === undefined) {
        throw new CatalystError('QUESTION_NOT_FOUND', 'That question is not waiting for an answer.');
      }
      return { question };
    },
  };
}

function questionsOf(events: RelayEvent[]): QuestionEvent[] {
  return events.flatMap((event) => (event.type === 'claude:question' ? [event] : []));
}
