import type { Api, QuestionEvent, RelayEvent } from '@catalyst/protocol';
import { CatalystError } from '../../core/catalyst-error.ts';
import type { Services } from '../../service/ports.ts';
import type { ApiHandlers } from '../../server/api-binding.ts';

/** /api/ideas: ideas, their history and the questions waiting in their runs. */

type IdeaRoutes =
  | 'listIdeas'
  | 'createIdea'
  | 'getIdea'
  | 'updateIdea'
  | 'deleteIdea'
  | 'events'
  | 'listQuestions'
  | 'getQuestion'
  | 'chooseOption'
  | 'decidePermission';

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
    // A notification's actions (issue 29): what a click on the option, or on Allow or Deny, in the page sends.
    chooseOption: async ({ params, body }) => {
      const pending = questionsOf(await runs.pendingPrompts(params.id));
      const asked = pending.find((q) => q.questionId === params.questionId);
      const [only] = asked?.questions ?? [];
      const option = only?.options[body.option];
      if (asked === undefined || only === undefined) {
        throw new CatalystError('QUESTION_NOT_FOUND', 'That question is not waiting for an answer.');
      }
      if (asked.questions.length !== 1 || option === undefined) {
        throw new CatalystError(
          'INVALID_ARGUMENT',
          'That question has no such option to choose: answer it in the page.',
        );
      }
      await runs.answerQuestion(params.id, params.questionId, { [only.question]: option.label });
    },
    decidePermission: async ({ params, body }) => {
      await runs.answerPermission(params.id, params.requestId, { decision: body.decision });
    },
  };
}

function questionsOf(events: RelayEvent[]): QuestionEvent[] {
  return events.flatMap((event) => (event.type === 'claude:question' ? [event] : []));
}
