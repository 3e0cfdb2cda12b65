import type { Api, QuestionEvent, RelayEvent } from '@catalyst/protocol';
import { CatalystError } from '../core/catalyst-error.ts';
import type { HostsPort, IdeasPort, RunsPort } from '../service/idea-service.ts';
import type { ApiHandlers } from './api-binding.ts';

/** /api/ideas and /api/hosts: ideas, their history and the questions waiting in their runs. */

type IdeaRoutes =
  | 'hosts'
  | 'listIdeas'
  | 'createIdea'
  | 'getIdea'
  | 'updateIdea'
  | 'deleteIdea'
  | 'events'
  | 'listQuestions'
  | 'getQuestion';

export function ideaHandlers(
  service: IdeasPort & HostsPort & Pick<RunsPort, 'pendingPrompts'>,
): ApiHandlers<Pick<Api, IdeaRoutes>> {
  return {
    hosts: async () => ({ hosts: await service.hosts() }),
    listIdeas: async () => ({ ideas: await service.listIdeas() }),
    createIdea: async ({ body }) => ({ idea: await service.createIdea(body) }),
    getIdea: async ({ params }) => ({ idea: await service.getIdea(params.id) }),
    updateIdea: async ({ params, body }) => ({ idea: await service.updateIdea(params.id, body) }),
    deleteIdea: async ({ params }) => {
      await service.deleteIdea(params.id);
    },
    events: async ({ params, query }) => ({
      events: await service.history(params.id, query.sinceSeq, query.limit),
    }),
    listQuestions: async ({ params }) => ({
      questions: questionsOf(await service.pendingPrompts(params.id)),
    }),
    getQuestion: async ({ params }) => {
      const questions = questionsOf(await service.pendingPrompts(params.id));
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
