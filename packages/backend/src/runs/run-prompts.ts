import {
  createErrorResponse,
  type CanUseToolRequest,
  type HostControlResponse,
  type RelayEvent,
  type RelayEventDraft,
} from '@catalyst/protocol';
import { isCatalystError } from '../core/catalyst-error.ts';
import type { PromptKind } from './core/control-decision.ts';
import {
  createDismissResponse,
  createNoAnswerInTimeResponse,
  createPermissionResponse,
  type PermissionDecision,
} from './core/prompt-answers.ts';
import { QuestionHandler, type SubmittedAnswers } from './core/question-handler.ts';
import { capAnswersForRelay, capQuestionItems } from './core/question-capping.ts';
import type { PromptCloseReason } from './core/run-commands.ts';
import { QuestionAutoAnswerer, type AutoAnswerSetup, type AutoAnswerStats } from './question-auto-answer.ts';

/**
 * The prompts of one run that wait for a person: AskUserQuestion calls (through QuestionHandler) and permission
 * requests. Each is announced as a relay event, kept while pending (so a client that subscribes later gets it
 * again), and settled exactly once: answered, dismissed, timed out, or closed by the run.
 */

export interface RunPromptsOptions {
  ideaId: string;
  runId: string;
  emit: (draft: RelayEventDraft) => RelayEvent;
  /** Hands a settled prompt's control response to the run (its lifecycle writes it). */
  answer: (id: string, response: HostControlResponse) => void;
  /** The idea's optional limit on how long a question waits for a person. */
  humanAnswerLimitMs?: number | undefined;
  /** questionPolicy `auto` / `human_then_auto`: how the answering model is reached. */
  autoAnswer?: AutoAnswerSetup | undefined;
}

interface PendingPermission {
  request: CanUseToolRequest;
  event: RelayEvent;
}

export interface PromptStats extends Partial<AutoAnswerStats> {
  questionsAsked: number;
  questionsAnsweredByPerson: number;
}

export class RunPrompts {
  readonly #options: RunPromptsOptions;
  readonly #questions = new QuestionHandler();
  readonly #questionEvents = new Map<string, RelayEvent>();
  readonly #permissions = new Map<string, PendingPermission>();
  readonly #limits = new Map<string, NodeJS.Timeout>();
  readonly #stats: PromptStats = { questionsAsked: 0, questionsAnsweredByPerson: 0 };

  readonly #auto: QuestionAutoAnswerer | undefined;

  constructor(options: RunPromptsOptions) {
    this.#options = options;
    const setup = options.autoAnswer;
    this.#auto =
      setup === undefined
        ? undefined
        : new QuestionAutoAnswerer(setup, {
            isPending: (id) => this.#questions.getPendingById(id) !== undefined,
            answer: (id, answers) => this.#answerAs(id, answers, { source: 'auto', by: setup.model }),
          });
  }

  ask(kind: PromptKind, requestId: string, request: CanUseToolRequest): void {
    if (kind === 'question') this.#askQuestion(requestId, request);
    else this.#askPermission(requestId, request);
  }

  /** `false` when no such question is pending; throws INVALID_ARGUMENT for an answer to a question not asked. */
  answerQuestion(id: string, answers: SubmittedAnswers): boolean {
    if (!this.#answerAs(id, answers, { source: 'human', by: 'person' })) return false;
    this.#stats.questionsAnsweredByPerson += 1;
    return true;
  }

  dismissQuestion(id: string): boolean {
    if (!this.#questions.settleWith(id, () => createDismissResponse(id))) return false;
    this.#closeQuestion(id, 'dismissed');
    return true;
  }

  answerPermission(id: string, decision: PermissionDecision): boolean {
    const pending = this.#permissions.get(id);
    if (pending === undefined) return false;
    this.#permissions.delete(id);
    this.#options.answer(id, createPermissionResponse(id, pending.request, decision));
    const reason = decision.decision === 'allow' ? 'allowed' : 'denied';
    this.#options.emit({ ...this.#context, type: 'claude:permission_closed', requestId: id, reason });
    return true;
  }

  /** The run settled these prompts itself (stop, or the CLI withdrew them): only close and announce. */
  close(ids: readonly string[], reason: PromptCloseReason): void {
    for (const id of ids) {
      if (this.#questions.reject(id, `closed: ${reason}`)) {
        this.#closeQuestion(id, reason === 'timed_out' ? 'timed_out' : 'cancelled');
      } else if (this.#permissions.delete(id)) {
        this.#options.emit({ ...this.#context, type: 'claude:permission_closed', requestId: id, reason });
      }
    }
  }

  stats(): PromptStats {
    return { ...this.#stats, ...this.#auto?.stats() };
  }

  /** The announcements of every prompt still waiting, oldest first. */
  pending(): RelayEvent[] {
    const events = [...this.#questionEvents.values(), ...[...this.#permissions.values()].map((p) => p.event)];
    return events.sort((a, b) => a.seq - b.seq);
  }

  #answerAs(id: string, answers: SubmittedAnswers, who: { source: 'human' | 'auto'; by: string }): boolean {
    const asked = this.#questions.getPendingById(id)?.questions ?? [];
    const unsubscribe = this.#questions.on('question:answered', (event) => {
      const draft = {
        type: 'claude:question_answered',
        questionId: id,
        answers: capAnswersForRelay(asked, event.answers),
        ...who,
      } as const;
      this.#options.emit({ ...this.#context, ...draft });
    });
    try {
      if (!this.#questions.submitAnswer(id, answers)) return false;
    } finally {
      unsubscribe();
    }
    this.#closeQuestion(id, 'answered');
    return true;
  }

  #askQuestion(requestId: string, request: CanUseToolRequest): void {
    const { ideaId, runId } = this.#options;
    this.#questions.ask({ requestId, request }, { ideaId, runId }).then(
      (response) => {
        this.#options.answer(requestId, response);
      },
      (error: unknown) => {
        if (isCatalystError(error) && error.code === 'QUESTION_CANCELLED') return;
        // §8.2: a malformed question still gets an answer, or the CLI would wait for ever.
        const why = error instanceof Error ? error.message : String(error);
        this.#options.answer(
          requestId,
          createErrorResponse(requestId, `Catalyst could not ask this: ${why}`),
        );
      },
    );
    const question = this.#questions.getPendingById(requestId);
    if (question === undefined) return;
    const askedAt = new Date(question.createdAt).toISOString();
    const event = this.#options.emit({
      ...this.#context,
      type: 'claude:question',
      questionId: requestId,
      // Capped as shown on the page; answers given to the shown texts are mapped back (question-capping.ts).
      questions: capQuestionItems(question.questions),
      askedAt,
    });
    this.#questionEvents.set(requestId, event);
    this.#stats.questionsAsked += 1;
    this.#armLimit(requestId);
    this.#auto?.schedule(requestId, question.questions);
  }

  #armLimit(id: string): void {
    const limitMs = this.#options.humanAnswerLimitMs;
    if (limitMs === undefined) return;
    const timer = setTimeout(() => {
      const question = this.#questions.getPendingById(id);
      if (question === undefined) return;
      const respond = (input: Record<string, unknown>) =>
        createNoAnswerInTimeResponse(id, input, question.questions);
      if (this.#questions.settleWith(id, respond)) this.#closeQuestion(id, 'timed_out');
    }, limitMs);
    this.#limits.set(id, timer);
  }

  #askPermission(requestId: string, request: CanUseToolRequest): void {
    const event = this.#options.emit({
      ...this.#context,
      type: 'claude:permission_request',
      requestId,
      toolName: request.tool_name,
      input: request.input,
      ...(request.description === undefined ? {} : { description: request.description }),
      ...(request.permission_suggestions === undefined
        ? {}
        : { suggestions: request.permission_suggestions }),
    });
    this.#permissions.set(requestId, { request, event });
  }

  #closeQuestion(id: string, reason: 'answered' | 'dismissed' | 'timed_out' | 'cancelled'): void {
    clearTimeout(this.#limits.get(id));
    this.#limits.delete(id);
    this.#auto?.forget(id);
    this.#questionEvents.delete(id);
    this.#options.emit({ ...this.#context, type: 'claude:question_closed', questionId: id, reason });
  }

  get #context(): { ideaId: string; runId: string } {
    return { ideaId: this.#options.ideaId, runId: this.#options.runId };
  }
}
