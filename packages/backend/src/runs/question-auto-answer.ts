import type { AskUserQuestionItem } from '@catalyst/protocol';
import {
  AUTO_ANSWER_CONVERSATION_MESSAGES,
  AUTO_ANSWER_REPEAT_MESSAGES,
  buildAutoAnswerPrompt,
  parseAutoAnswer,
  type AutoAnswerRequest,
} from './core/auto-answer.ts';
import type { ConversationEntry } from './core/conversation-entries.ts';
import { CatalystError } from '../core/catalyst-error.ts';
import type { AutoAnswerReply } from './auto-answer-run.ts';

/**
 * Answers a run's questions with a small model (questionPolicy `auto` at once, `human_then_auto` after the idea's
 * delay if no person answered). An unusable reply is retried once; a question Claude asks again after an automatic
 * answer is answered again with more of the conversation, and a third time ends the run: it is going in circles.
 */

export interface AutoAnswerSetup {
  policy: 'auto' | 'human_then_auto';
  delayMs: number;
  /** The answering model's name, for `claude:question_answered.by`. */
  model: string;
  idea: { title: string; description: string };
  /** Runs the answering model; `signal` stops it (its question was settled otherwise meanwhile). */
  reply: (prompt: string, signal: AbortSignal) => Promise<AutoAnswerReply>;
  /**
   * The idea's newest conversation entries, at most `maxEntries`, oldest first: its messages, and with
   * `withActivity` the tool calls and results, questions and answers between them.
   */
  conversation: (request: { maxEntries: number; withActivity: boolean }) => Promise<ConversationEntry[]>;
  /** Ends the run `failed` with this message (policy `auto` only: nobody else would answer). */
  fail: (message: string) => void;
  /** `human_then_auto`: the question stays with the person; worth a log line. */
  warn: (message: string) => void;
}

export interface AutoAnswerTarget {
  isPending(id: string): boolean;
  /** Settles the question with the model's answers; false when it is no longer pending. */
  answer(id: string, answers: Record<string, string>): boolean;
}

export interface AutoAnswerStats {
  questionsAnsweredAutomatically: number;
  autoAnswerRetries: number;
  auxiliaryCostUsd: number;
}

export class QuestionAutoAnswerer {
  readonly #setup: AutoAnswerSetup;
  readonly #target: AutoAnswerTarget;
  readonly #given = new Map<string, string[]>();
  readonly #timers = new Map<string, NodeJS.Timeout>();
  readonly #running = new Map<string, AbortController>();
  readonly #stats: AutoAnswerStats = {
    questionsAnsweredAutomatically: 0,
    autoAnswerRetries: 0,
    auxiliaryCostUsd: 0,
  };

  constructor(setup: AutoAnswerSetup, target: AutoAnswerTarget) {
    this.#setup = setup;
    this.#target = target;
  }

  stats(): AutoAnswerStats {
    return { ...this.#stats };
  }

  schedule(id: string, questions: readonly AskUserQuestionItem[]): void {
    const key = questions.map((item) => item.question).join('\n');
    const earlier = this.#given.get(key) ?? [];
    if (earlier.length >= 2) {
      this.#setup.fail(
        `Claude asked "${key}" a third time after automatic answers ${earlier.join(' and then ')}; stopping instead of answering in circles.`,
      );
      return;
    }
    const start = () => void this.#answer({ id, questions, key, earlier });
    if (this.#setup.policy === 'auto') start();
    else this.#timers.set(id, setTimeout(start, this.#setup.delayMs));
  }

  /** The question was settled otherwise (a person, a stop): no automatic answer is due any more. */
  forget(id: string): void {
    clearTimeout(this.#timers.get(id));
    this.#timers.delete(id);
    // A cancelled run must leave nothing on the VM, the answering process included.
    this.#running.get(id)?.abort();
    this.#running.delete(id);
  }

  async #answer(job: {
    id: string;
    questions: readonly AskUserQuestionItem[];
    key: string;
    earlier: readonly string[];
  }) {
    this.#timers.delete(job.id);
    if (!this.#target.isPending(job.id)) return;
    const controller = new AbortController();
    this.#running.set(job.id, controller);
    try {
      const isRepeat = job.earlier.length > 0;
      const maxEntries = isRepeat ? AUTO_ANSWER_REPEAT_MESSAGES : AUTO_ANSWER_CONVERSATION_MESSAGES;
      const recent = await this.#setup.conversation({ maxEntries, withActivity: isRepeat });
      const request = {
        questions: job.questions,
        idea: this.#setup.idea,
        conversation: recent.slice(-maxEntries),
        ...(isRepeat ? { askedAgainAfter: job.earlier } : {}),
      };
      const answers = await this.#attempt(request, controller.signal);
      if (!this.#target.answer(job.id, answers)) return;
      this.#stats.questionsAnsweredAutomatically += 1;
      this.#given.set(job.key, [...(this.#given.get(job.key) ?? []), JSON.stringify(answers)]);
    } catch (error) {
      if (this.#target.isPending(job.id)) this.#giveUp(error);
    } finally {
      this.#running.delete(job.id);
    }
  }

  /** `auto` has nobody else to ask, so the run ends; `human_then_auto` leaves the question with the person. */
  #giveUp(error: unknown): void {
    const why = error instanceof Error ? error.message : String(error);
    if (this.#setup.policy === 'auto') {
      this.#setup.fail(`Claude's question could not be answered automatically: ${why}`);
    } else this.#setup.warn(`automatic answer failed, the question stays with the person: ${why}`);
  }

  async #attempt(request: AutoAnswerRequest, signal: AbortSignal): Promise<Record<string, string>> {
    const { questions } = request;
    const first = await this.#ask(buildAutoAnswerPrompt(request), signal);
    const parsed = parseAutoAnswer(first, questions);
    if (parsed.ok) return parsed.answers;
    this.#stats.autoAnswerRetries += 1;
    const retry = buildAutoAnswerPrompt({ ...request, retryOf: { reply: first, problem: parsed.problem } });
    const second = await this.#ask(retry, signal);
    const again = parseAutoAnswer(second, questions);
    if (again.ok) return again.answers;
    throw new CatalystError(
      'AUTO_ANSWER_FAILED',
      `the answering model's replies were unusable (${parsed.problem}; then ${again.problem}): ${JSON.stringify(first)}, then ${JSON.stringify(second)}`,
    );
  }

  async #ask(prompt: string, signal: AbortSignal): Promise<string> {
    // A cancel during the history read or between attempts must not start another process on the VM.
    if (signal.aborted) throw new CatalystError('QUESTION_CANCELLED', 'the automatic answer was cancelled');
    const reply = await this.#setup.reply(prompt, signal);
    this.#stats.auxiliaryCostUsd += reply.costUsd;
    return reply.text;
  }
}
