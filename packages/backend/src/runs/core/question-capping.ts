import { isJsonObject, type AskUserQuestionAnswers, type AskUserQuestionItem } from '@catalyst/protocol';
import { capText } from './relay-mapping.ts';

/**
 * AskUserQuestion's texts, as a person sees them (issue 16, item 9). The model writes them, so they can be of any
 * size; a question must still reach the page and be answerable. The `claude:question` event carries the items with
 * every string capped (question text and most fields at 16 KiB, option labels at 4 KiB, so an answer frame stays
 * far below MAX_CLIENT_FRAME_BYTES). The page answers with the texts it was shown; `uncapAnswers` maps them back
 * to the full question texts and labels the CLI expects (§8.3: answers are keyed by the full question text).
 * Capping is a pure function of the items, so the same cut is made when asking and when answering.
 */

export const MAX_QUESTION_TEXT_BYTES = 16 * 1024;
export const MAX_OPTION_LABEL_BYTES = 4 * 1024;

export function capQuestionItems(items: readonly AskUserQuestionItem[]): AskUserQuestionItem[] {
  return items.map((item) => ({
    ...capMembers(item),
    question: capText(item.question, MAX_QUESTION_TEXT_BYTES),
    header: capText(item.header, MAX_QUESTION_TEXT_BYTES),
    multiSelect: item.multiSelect,
    options: item.options.map((option) => ({
      ...capMembers(option),
      label: capText(option.label, MAX_OPTION_LABEL_BYTES),
      description: capText(option.description, MAX_QUESTION_TEXT_BYTES),
    })),
  }));
}

/** An answer keyed by the question text (full or as shown); a value an option's label (full or as shown), or text. */
export type AnswersByText = Record<string, string | readonly string[]>;

/**
 * Answers given to the capped questions, keyed and valued as the CLI expects: a shown (capped) question text
 * becomes the full one, a shown label the full label. Keys and values that match nothing are kept as they are
 * (the caller refuses a question that was not asked; free text is an answer of its own).
 */
export function uncapAnswers(items: readonly AskUserQuestionItem[], answers: AnswersByText): AnswersByText {
  const shown = capQuestionItems(items);
  const result: AnswersByText = {};
  for (const [key, value] of Object.entries(answers)) {
    const index = items.findIndex((item, at) => item.question === key || shown[at]?.question === key);
    const item = items[index];
    const shownItem = shown[index];
    if (item === undefined || shownItem === undefined) {
      result[key] = value;
      continue;
    }
    const fullLabel = (text: string): string => {
      const at = shownItem.options.findIndex((option) => option.label === text);
      return at < 0 ? text : (item.options[at]?.label ?? text);
    };
    result[item.question] = typeof value === 'string' ? fullLabel(value) : value.map(fullLabel);
  }
  return result;
}

/** The answers as the page shows them: keyed by the question text it was shown, the values capped alike. */
export function capAnswersForRelay(
  items: readonly AskUserQuestionItem[],
  answers: AskUserQuestionAnswers,
): AskUserQuestionAnswers {
  const shown = capQuestionItems(items);
  const result: AskUserQuestionAnswers = {};
  for (const [key, value] of Object.entries(answers)) {
    const index = items.findIndex((item) => item.question === key);
    const shownKey = shown[index]?.question ?? capText(key, MAX_QUESTION_TEXT_BYTES);
    result[shownKey] = capText(value, MAX_QUESTION_TEXT_BYTES);
  }
  return result;
}

/** Every other string member (the model may add fields: `preview`, unknown ones) capped at the question's size. */
function capMembers(value: Record<string, unknown>): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) copy[key] = capDeep(member, 0);
  return copy;
}

function capDeep(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return capText(value, MAX_QUESTION_TEXT_BYTES);
  if (depth >= 8) return value;
  if (Array.isArray(value)) return value.map((item) => capDeep(item, depth + 1));
  if (!isJsonObject(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([key, member]) => [key, capDeep(member, depth + 1)]));
}
