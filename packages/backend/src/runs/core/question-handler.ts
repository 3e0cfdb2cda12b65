import {
  ASK_USER_QUESTION_TOOL_NAME,
  AskUserQuestionInputSchema,
  createAllowResponse,
  type AskUserQuestionAnswers,
  type AskUserQuestionItem,
  type CanUseToolRequest,
  type HostControlResponse,
} from '@catalyst/protocol';
import { CatalystError } from '../../core/catalyst-error.ts';
import { uncapAnswers } from './question-capping.ts';

/**
 * Pending AskUserQuestion calls of a run. The CLI sends each as a `can_use_tool` control request and waits
 * indefinitely (protocol §8.2, §8.3); `ask` returns a promise of the control response to write back, which settles
 * only when a person (or later a model) answers, or when `rejectAll` ends every wait (cancel, timeout).
 */

/** Who and what a question belongs to, passed through to events as given. */
export interface QuestionContext {
  ideaId?: string;
  runId?: string;
  sessionId?: string;
}

export interface PendingQuestion {
  /** The CLI's `request_id`: unique per request, and what the answer is sent back under. */
  id: string;
  toolUseId?: string;
  questions: AskUserQuestionItem[];
  createdAt: number;
  context: QuestionContext;
}

/** An answer per question text: one label, free text, or several labels for a multi-select question. */
export type SubmittedAnswers = Record<string, string | readonly string[]>;

export interface QuestionEvents {
  'question:pending': (question: PendingQuestion) => void;
  'question:answered': (event: { id: string; answers: AskUserQuestionAnswers }) => void;
}

interface Waiter {
  question: PendingQuestion;
  input: Record<string, unknown>;
  resolve: (response: HostControlResponse) => void;
  reject: (error: CatalystError) => void;
}

export interface AskRequest {
  requestId: string;
  request: CanUseToolRequest;
}

export class QuestionHandler {
  readonly #waiters = new Map<string, Waiter>();
  readonly #listeners: { [K in keyof QuestionEvents]: Set<QuestionEvents[K]> } = {
    'question:pending': new Set(),
    'question:answered': new Set(),
  };
  readonly #now: () => number;

  constructor(options: { now?: () => number } = {}) {
    this.#now = options.now ?? Date.now;
  }

  /** Subscribes to an event; returns the function that unsubscribes. */
  on<K extends keyof QuestionEvents>(event: K, listener: QuestionEvents[K]): () => void {
    this.#listeners[event].add(listener);
    return () => this.#listeners[event].delete(listener);
  }

  /** Starts waiting for an answer. Rejects at once (INVALID_ARGUMENT) for a request that is not an AskUserQuestion. */
  ask({ requestId, request }: AskRequest, context: QuestionContext = {}): Promise<HostControlResponse> {
    const input = AskUserQuestionInputSchema.safeParse(request.input);
    if (request.tool_name !== ASK_USER_QUESTION_TOOL_NAME || !input.success) {
      const why = input.success
        ? `tool ${request.tool_name} is not ${ASK_USER_QUESTION_TOOL_NAME}`
        : input.error.message;
      return Promise.reject(new CatalystError('INVALID_ARGUMENT', `not a question request: ${why}`));
    }
    if (this.#waiters.has(requestId)) {
      return Promise.reject(
        new CatalystError('INVALID_ARGUMENT', `question ${requestId} is already pending`),
      );
    }
    const question: PendingQuestion = {
      id: requestId,
      questions: input.data.questions,
      createdAt: this.#now(),
      context,
    };
    if (request.tool_use_id !== undefined) question.toolUseId = request.tool_use_id;
    const promise = new Promise<HostControlResponse>((resolve, reject) => {
      this.#waiters.set(requestId, { question, input: request.input, resolve, reject });
    });
    for (const listener of this.#listeners['question:pending']) listener(question);
    return promise;
  }

  /**
   * Answers a pending question: `true` when it was pending, `false` for an unknown (or already settled) id.
   * Throws INVALID_ARGUMENT, and changes nothing, when an answer names a question that was not asked.
   */
  submitAnswer(id: string, answers: SubmittedAnswers): boolean {
    const waiter = this.#waiters.get(id);
    if (!waiter) return false;
    const normalized = normalizeAnswers(waiter.question.questions, answers);
    this.#waiters.delete(id);
    // §8.3: allow + updatedInput = the original input plus `answers` keyed by the full question text.
    waiter.resolve(createAllowResponse(id, { ...waiter.input, answers: normalized }));
    for (const listener of this.#listeners['question:answered']) listener({ id, answers: normalized });
    return true;
  }

  /**
   * Settles a pending question with a response other than a person's answer (dismissed, timed out), built from
   * the question's original input. `false` for an unknown (or already settled) id.
   */
  settleWith(id: string, respond: (input: Record<string, unknown>) => HostControlResponse): boolean {
    const waiter = this.#waiters.get(id);
    if (!waiter) return false;
    this.#waiters.delete(id);
    waiter.resolve(respond(waiter.input));
    return true;
  }

  /** Ends one wait with QUESTION_CANCELLED (e.g. the CLI withdrew its request, §8.4). */
  reject(id: string, reason: string): boolean {
    const waiter = this.#waiters.get(id);
    if (!waiter) return false;
    this.#waiters.delete(id);
    waiter.reject(new CatalystError('QUESTION_CANCELLED', reason, { details: { questionId: id } }));
    return true;
  }

  getPending(): PendingQuestion[] {
    return [...this.#waiters.values()].map((waiter) => waiter.question);
  }

  getPendingById(id: string): PendingQuestion | undefined {
    return this.#waiters.get(id)?.question;
  }

  /** Settles every pending question with a QUESTION_CANCELLED error carrying `reason`; returns how many. */
  rejectAll(reason: string): number {
    const waiters = [...this.#waiters.values()];
    this.#waiters.clear();
    for (const waiter of waiters) {
      waiter.reject(
        new CatalystError('QUESTION_CANCELLED', reason, { details: { questionId: waiter.question.id } }),
      );
    }
    return waiters.length;
  }
}

function normalizeAnswers(
  questions: readonly AskUserQuestionItem[],
  answers: SubmittedAnswers,
): AskUserQuestionAnswers {
  const asked = new Set(questions.map((item) => item.question));
  const normalized: AskUserQuestionAnswers = {};
  // The page shows (and answers with) capped texts when the model wrote huge ones: mapped back to the full ones.
  for (const [question, answer] of Object.entries(uncapAnswers(questions, answers))) {
    if (!asked.has(question)) {
      throw new CatalystError('INVALID_ARGUMENT', `no question "${question}" was asked`, {
        details: { asked: [...asked] },
      });
    }
    // sdk-tools.d.ts: a multi-select answer is its labels joined with ", ".
    normalized[question] = typeof answer === 'string' ? answer : answer.join(', ');
  }
  return normalized;
}
