import type { AskUserQuestionItem } from '@catalyst/protocol';

/** The question the tests have Claude ask (AskUserQuestion): one choice of two options, each described. */
export const colorQuestion: AskUserQuestionItem = {
  question: 'Which color do you prefer?',
  header: 'Color',
  options: [
    { label: 'Red', description: 'Warm color' },
    { label: 'Blue', description: 'Cool color' },
  ],
  multiSelect: false,
};
