import { MAX_RELAY_EVENT_BYTES, type IdeaMeta, type RelayEvent } from '@catalyst/protocol';
import { CatalystError } from '../core/catalyst-error.ts';
import type { AskPerson } from './core/control-decision.ts';
import { DEFAULT_QA_MODEL } from './core/auto-answer.ts';
import {
  conversationOf,
  isConversationEvent,
  isMessageEntry,
  type ConversationEntry,
} from './core/conversation-entries.ts';
import type { IdeaHistory } from '../ideas/event-history.ts';
import { buildSessionRecap, RECAP_MESSAGES } from './core/lost-session.ts';
import type { PromptControls } from './active-run.ts';
import type { AutoAnswerOptions } from './run-driver-options.ts';
import type { PromptStats } from './run-prompts.ts';

/** Routes a person's answers to the prompts of an idea's run; an id that is not pending changes nothing. */

export function requireQuestion(isSettled: boolean, questionId: string): void {
  if (isSettled) return;
  throw new CatalystError(
    'QUESTION_NOT_FOUND',
    'That question is not waiting for an answer: it was answered, dismissed or closed, or never asked.',
    { details: { questionId } },
  );
}

export function requirePermission(isSettled: boolean, requestId: string): void {
  if (isSettled) return;
  throw new CatalystError(
    'PERMISSION_REQUEST_NOT_FOUND',
    'That permission request is not waiting for an answer: it was answered, withdrawn or closed.',
    { details: { requestId } },
  );
}

/** An idea without a run: nothing is pending, so every answer is to a prompt that is not waiting. */
export const NO_PROMPTS: PromptControls = {
  answerQuestion: () => false,
  dismissQuestion: () => false,
  answerPermission: () => false,
  pending: () => [],
  stats: () => ({ questionsAsked: 0, questionsAnsweredByPerson: 0 }),
};

export function pendingOf(prompts: PromptControls | undefined): RelayEvent[] {
  return prompts?.pending() ?? [];
}

/**
 * Who answers the run's prompts: every question is routed (to a person, or to the model per questionPolicy);
 * tool calls only with permissionPolicy `ask`.
 */
export function promptOptionsFor(
  meta: IdeaMeta,
  qa: QaSettings,
  history: IdeaHistory,
): {
  askPerson: AskPerson;
  humanAnswerLimitMs: number | undefined;
  autoAnswer: AutoAnswerOptions | undefined;
} {
  return {
    askPerson: { questions: true, permissions: meta.permissionPolicy === 'ask' },
    humanAnswerLimitMs: meta.humanAnswerLimitMs,
    autoAnswer: autoAnswerFor(meta, qa, history),
  };
}

/** The model that answers questions automatically (CATALYST_QA_MODEL) and its time limit per attempt. */
export interface QaSettings {
  model: string;
  timeoutMs: number;
}

export const DEFAULT_QA: QaSettings = { model: DEFAULT_QA_MODEL, timeoutMs: 60_000 };

/** questionPolicy `human` needs no model; the others get the idea and its conversation for the prompt. */
export function autoAnswerFor(
  meta: IdeaMeta,
  qa: QaSettings,
  history: IdeaHistory,
): AutoAnswerOptions | undefined {
  if (meta.questionPolicy === 'human') return undefined;
  return {
    policy: meta.questionPolicy,
    delayMs: meta.autoAnswerDelayMs,
    ...qa,
    model: meta.qaModel ?? qa.model,
    idea: { title: meta.title, description: meta.description },
    conversation: async (request) => (await readConversation(history, request)).entries,
  };
}

/**
 * The recap a run's new session starts with when the CLI no longer has the idea's session (runs/core/lost-session.ts):
 * the idea and the conversation before this run, read from the history only when asked.
 */
export function sessionRecapFor(meta: IdeaMeta, history: IdeaHistory, runId: string): () => Promise<string> {
  return async () => {
    const read = await readConversation(history, { maxEntries: RECAP_MESSAGES, exceptRunId: runId });
    return buildSessionRecap({
      idea: { title: meta.title, description: meta.description },
      conversation: read.entries.filter(isMessageEntry),
      hasEarlier: !read.isComplete,
    });
  };
}

/**
 * Room for four messages of the largest size an event can have (each message is one event): the recap and the
 * answerer cut long messages themselves, so this only bounds what a read holds, whatever the history's size.
 */
const CONVERSATION_READ_BYTES = 4 * MAX_RELAY_EVENT_BYTES;
const ACTIVITY_OVER_READ = 4;

/**
 * The newest entries of the idea's conversation (of runs other than `exceptRunId`), oldest first: its messages,
 * and with `withActivity` what happened between them (runs/core/conversation-entries.ts).
 */
export async function readConversation(
  history: IdeaHistory,
  request: { maxEntries: number; exceptRunId?: string; withActivity?: boolean },
): Promise<{ entries: ConversationEntry[]; isComplete: boolean }> {
  const withActivity = request.withActivity === true;
  const { events, isComplete } = await history.latest({
    // A tool result is chosen before it is known whether it shows (a subagent's does not): read more, then cut.
    maxEvents: withActivity ? request.maxEntries * ACTIVITY_OVER_READ : request.maxEntries,
    maxBytes: CONVERSATION_READ_BYTES,
    select: (event) => event.runId !== request.exceptRunId && isConversationEvent(event, withActivity),
  });
  return { entries: conversationOf(events).slice(-request.maxEntries), isComplete };
}

export function addPromptTotals(meta: IdeaMeta, stats: PromptStats | undefined): IdeaMeta {
  if (stats === undefined) return meta;
  const { totals } = meta;
  return {
    ...meta,
    totals: {
      ...totals,
      questionsAsked: totals.questionsAsked + stats.questionsAsked,
      questionsAnsweredByPerson: totals.questionsAnsweredByPerson + stats.questionsAnsweredByPerson,
      questionsAnsweredAutomatically:
        totals.questionsAnsweredAutomatically + (stats.questionsAnsweredAutomatically ?? 0),
      autoAnswerRetries: totals.autoAnswerRetries + (stats.autoAnswerRetries ?? 0),
      auxiliaryCostUsd: totals.auxiliaryCostUsd + (stats.auxiliaryCostUsd ?? 0),
    },
  };
}
