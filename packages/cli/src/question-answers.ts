import type { AskUserQuestionItem } from '@catalyst/protocol';

/**
 * What a person typed at a question's prompt, as the `answer` frame takes it: an option's label (by its number),
 * several labels for a multi-select (`1,3`), or their own words (the "Other" answer). Pure.
 */
export type TypedAnswer = { ok: true; answer: string | string[] } | { ok: false; problem: string };

const NUMBERS = /^\d+(\s*,\s*\d+)*$/;

export function parseTypedAnswer(input: string, item: AskUserQuestionItem): TypedAnswer {
  const text = input.trim();
  if (text === '') return { ok: false, problem: 'Type a number, or an answer of your own.' };
  if (!NUMBERS.test(text) || item.options.length === 0) return { ok: true, answer: text };
  const numbers = text.split(',').map((part) => Number(part.trim()));
  const labels = numbers.map((number) => item.options[number - 1]?.label);
  const count = String(item.options.length);
  if (labels.some((label) => label === undefined)) {
    return { ok: false, problem: `Choose between 1 and ${count}.` };
  }
  const chosen = [...new Set(labels.filter((label): label is string => label !== undefined))];
  if (item.multiSelect) return { ok: true, answer: chosen };
  const [only] = chosen;
  if (chosen.length !== 1 || only === undefined) return { ok: false, problem: 'Choose one option.' };
  return { ok: true, answer: only };
}

/** A permission prompt's reply: yes or no, nothing else. */
export function parseYesNo(input: string): boolean | undefined {
  const text = input.trim().toLowerCase();
  if (['y', 'yes'].includes(text)) return true;
  if (['n', 'no'].includes(text)) return false;
  return undefined;
}
