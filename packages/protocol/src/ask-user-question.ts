import { z } from 'zod';

/**
 * The AskUserQuestion tool (claude-cli-protocol.md §8.3). Its input is written by the model and reaches the host
 * as the `input` of a `can_use_tool` request, so it is parsed leniently: unknown fields are kept. The tool exists
 * only with `--permission-prompt-tool stdio` (§2.4).
 */

export const ASK_USER_QUESTION_TOOL_NAME = 'AskUserQuestion';

export const AskUserQuestionOptionSchema = z.looseObject({
  label: z.string(),
  description: z.string(),
  preview: z.string().optional(),
});
export type AskUserQuestionOption = z.infer<typeof AskUserQuestionOptionSchema>;

export const AskUserQuestionItemSchema = z.looseObject({
  question: z.string(),
  header: z.string(),
  options: z.array(AskUserQuestionOptionSchema),
  multiSelect: z.boolean(),
});
export type AskUserQuestionItem = z.infer<typeof AskUserQuestionItemSchema>;

export const AskUserQuestionInputSchema = z.looseObject({
  questions: z.array(AskUserQuestionItemSchema),
});
export type AskUserQuestionInput = z.infer<typeof AskUserQuestionInputSchema>;

/**
 * §8.3: keyed by the question text; the value is the chosen label, or for multiSelect the chosen labels
 * comma-separated. The host answers with allow + `updatedInput` = the original input plus `answers`; an allow
 * without `answers` tells the model "The user did not answer the questions."
 */
export const AskUserQuestionAnswersSchema = z.record(z.string(), z.string());
export type AskUserQuestionAnswers = z.infer<typeof AskUserQuestionAnswersSchema>;
