import { z } from 'zod';
import type { AskUserQuestionItem } from '@catalyst/protocol';
import { boundConversation, type ConversationEntry } from './conversation-entries.ts';

/**
 * Answering Claude's AskUserQuestion with a small model (questionPolicy `auto` / `human_then_auto`): the prompt it
 * gets, and the strict reading of its reply. The reply must name, per question, one offered label (several for a
 * multi-select question), or free text marked as "Other" (the CLI always lets a person type their own answer).
 */

export const DEFAULT_QA_MODEL = 'claude-haiku-4-5';
export const AUTO_ANSWER_CONVERSATION_MESSAGES = 10;
/**
 * A question asked again after an automatic answer gets more of the conversation: this many newest entries, the
 * tool calls and results, questions and answers between the messages included (runs/core/conversation-entries.ts).
 */
export const AUTO_ANSWER_REPEAT_MESSAGES = 200;
/** What one prompt holds of the conversation, whatever the history: each entry cut, the newest kept. */
export const AUTO_ANSWER_ENTRY_CHARS = 2_000;
export const AUTO_ANSWER_CONVERSATION_CHARS = 24_000;

export interface AutoAnswerRequest {
  questions: readonly AskUserQuestionItem[];
  idea: { title: string; description: string };
  /** Oldest first. */
  conversation: readonly ConversationEntry[];
  /** Claude asked these questions before and got these automatic answers (JSON), yet asks again. */
  askedAgainAfter?: readonly string[];
  /** The previous attempt's reply and what was wrong with it: the retry says so. */
  retryOf?: { reply: string; problem: string };
}

const ReplySchema = z.strictObject({
  answers: z.record(
    z.string(),
    z.union([
      z.string().min(1),
      z.array(z.string().min(1)).min(1),
      z.strictObject({ other: z.string().min(1) }),
    ]),
  ),
});

export function buildAutoAnswerPrompt(request: AutoAnswerRequest): string {
  const questions = request.questions.map((item, index) => describeQuestion(item, index + 1)).join('\n\n');
  const parts = [
    'You answer questions that a coding assistant (Claude) asked the person whose idea it is working on, on their behalf.',
    `The idea: ${request.idea.title}\n${request.idea.description}`.trim(),
    describeConversation(request.conversation),
    `The questions:\n${questions}`,
  ];
  const earlier = request.askedAgainAfter ?? [];
  if (earlier.length > 0) {
    parts.push(
      `Claude asked these questions before and was answered automatically with ${earlier.join(', then ')}, yet it asks again: what happened since (above) may show why. Answer so that the work can go on.`,
    );
  }
  parts.push(
    'Reply with JSON only, no prose and no code fence: {"answers": {"<question text>": <answer>}} with one entry per question, where <answer> is one offered label as a string, an array of offered labels for a multi-select question, or {"other": "<your own short answer>"} when no label fits.',
  );
  if (request.retryOf !== undefined) {
    parts.push(
      `Your previous reply could not be used (${request.retryOf.problem}). It was:\n${request.retryOf.reply}`,
    );
  }
  return parts.join('\n\n');
}

function describeConversation(conversation: readonly ConversationEntry[]): string {
  const { entries, leftOut } = boundConversation(conversation, {
    entryChars: AUTO_ANSWER_ENTRY_CHARS,
    totalChars: AUTO_ANSWER_CONVERSATION_CHARS,
  });
  const lines = entries.map((entry) => `${SPEAKERS[entry.role]}${entry.text}`);
  const heading =
    leftOut === 0
      ? 'The conversation so far (most recent last):'
      : `The conversation so far (most recent last; ${String(leftOut)} earlier entries left out):`;
  return `${heading}\n${lines.join('\n') || '(none)'}`;
}

const SPEAKERS: Record<ConversationEntry['role'], string> = {
  person: 'Person: ',
  claude: 'Claude: ',
  activity: '  · ',
};

function describeQuestion(item: AskUserQuestionItem, number: number): string {
  const kind = item.multiSelect ? 'choose one or more' : 'choose one';
  const options = item.options.map((option) => `- ${option.label}: ${option.description}`).join('\n');
  return `${number}. ${item.question} (${item.header}; ${kind})\n${options}`;
}

export type ParsedAutoAnswer = { ok: true; answers: Record<string, string> } | { ok: false; problem: string };

/** Reads the model's reply; every question must be answered with what it offers (or free text as "Other"). */
export function parseAutoAnswer(reply: string, questions: readonly AskUserQuestionItem[]): ParsedAutoAnswer {
  let value: unknown;
  try {
    value = JSON.parse(stripFence(reply));
  } catch {
    return { ok: false, problem: 'it is not JSON' };
  }
  const parsed = ReplySchema.safeParse(value);
  if (!parsed.success)
    return { ok: false, problem: 'it is not {"answers": {…}} with one answer per question' };
  const answers: Record<string, string> = {};
  for (const item of questions) {
    const answer = parsed.data.answers[item.question];
    if (answer === undefined) return { ok: false, problem: `"${item.question}" has no answer` };
    const checked = checkAnswer(item, answer);
    if (!checked.ok) return checked;
    answers[item.question] = checked.text;
  }
  return { ok: true, answers };
}

type Answer = z.infer<typeof ReplySchema>['answers'][string];

function checkAnswer(
  item: AskUserQuestionItem,
  answer: Answer,
): { ok: true; text: string } | { ok: false; problem: string } {
  if (typeof answer === 'object' && !Array.isArray(answer)) return { ok: true, text: answer.other };
  const labels = typeof answer === 'string' ? [answer] : answer;
  const offered = new Set(item.options.map((option) => option.label));
  const unknown = labels.find((label) => !offered.has(label));
  if (unknown !== undefined) return { ok: false, problem: `"${unknown}" is not an offered label` };
  if (labels.length > 1 && !item.multiSelect)
    return { ok: false, problem: `"${item.question}" takes one label` };
  // sdk-tools.d.ts: a multi-select answer is its labels joined with ", " (protocol §8.3).
  return { ok: true, text: labels.join(', ') };
}

function stripFence(reply: string): string {
  const trimmed = reply.trim();
  const fenced = /^```(?:json)?\s*([\s\S]*?)\s*```$/.exec(trimmed);
  return fenced?.[1] ?? trimmed;
}
