import type { AskUserQuestionItem } from '@catalyst/protocol';

/** What the person has picked for one question so far. */
export interface QuestionChoice {
  /** Chosen option labels, in option order. */
  readonly labels: readonly string[];
  readonly isOther: boolean;
  /** Kept when Other is unticked, so ticking it again brings the text back. */
  readonly otherText: string;
}

export const emptyChoice: QuestionChoice = { labels: [], isOther: false, otherText: '' };

export type AnswerValue = string | string[];

/** A radio picks one option (and clears Other); a checkbox toggles its option. */
export function chooseOption(
  item: AskUserQuestionItem,
  choice: QuestionChoice,
  label: string,
  isChecked: boolean,
): QuestionChoice {
  if (!item.multiSelect) return { ...choice, labels: isChecked ? [label] : [], isOther: false };
  const labels = new Set(choice.labels);
  if (isChecked) labels.add(label);
  else labels.delete(label);
  return { ...choice, labels: item.options.map((option) => option.label).filter((l) => labels.has(l)) };
}

export function chooseOther(
  item: AskUserQuestionItem,
  choice: QuestionChoice,
  isChecked: boolean,
): QuestionChoice {
  if (item.multiSelect) return { ...choice, isOther: isChecked };
  return isChecked ? { ...choice, labels: [], isOther: true } : { ...choice, isOther: false };
}

/**
 * The `answer` frame's value for one question (ws-frames.ts): the option label, the Other text, or for
 * multiSelect the labels with the Other text as one more entry. Undefined while nothing usable is chosen.
 */
export function toAnswerValue(item: AskUserQuestionItem, choice: QuestionChoice): AnswerValue | undefined {
  const other = choice.isOther ? choice.otherText.trim() : '';
  if (item.multiSelect) {
    const values = other === '' ? [...choice.labels] : [...choice.labels, other];
    return values.length === 0 ? undefined : values;
  }
  if (choice.isOther) return other === '' ? undefined : other;
  return choice.labels[0];
}

/** Answers keyed by question text, or undefined until every question has one. */
export function buildAnswers(
  items: readonly AskUserQuestionItem[],
  choices: readonly QuestionChoice[],
): Record<string, AnswerValue> | undefined {
  const answers: Record<string, AnswerValue> = {};
  for (const [index, item] of items.entries()) {
    const value = toAnswerValue(item, choices[index] ?? emptyChoice);
    if (value === undefined) return undefined;
    answers[item.question] = value;
  }
  return answers;
}
