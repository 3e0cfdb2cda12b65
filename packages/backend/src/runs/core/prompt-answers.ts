import {
  createAllowResponse,
  createDenyResponse,
  type AskUserQuestionItem,
  type CanUseToolRequest,
  type HostControlResponse,
} from '@catalyst/protocol';

/**
 * The control responses Catalyst writes for prompts a person did not answer with labels (protocol §8.2, §8.3).
 * A dismissal is a deny (the model reads it as the person declining); a question that waited past the idea's
 * limit is an allow whose answers tell the model to go on, so it does not read as a refusal.
 */

export const DISMISSED_MESSAGE =
  'The person dismissed this question and chose not to answer it. Do not ask it again; continue with your best judgement and say what you assumed.';

export const NO_ANSWER_IN_TIME =
  'The person did not answer in time; continue with your best judgement and say what you assumed.';

export const PERMISSION_DENIED_MESSAGE = 'The person denied this tool call.';

export function createDismissResponse(requestId: string): HostControlResponse {
  return createDenyResponse(requestId, DISMISSED_MESSAGE);
}

export function createNoAnswerInTimeResponse(
  requestId: string,
  input: Record<string, unknown>,
  questions: readonly AskUserQuestionItem[],
): HostControlResponse {
  const answers = Object.fromEntries(questions.map((item) => [item.question, NO_ANSWER_IN_TIME]));
  return createAllowResponse(requestId, { ...input, answers });
}

export interface PermissionDecision {
  decision: 'allow' | 'deny';
  message?: string | undefined;
  remember?: boolean | undefined;
}

/** §8.2: allow echoes the input; `remember` hands the CLI's own suggestions back as updatedPermissions [21d]. */
export function createPermissionResponse(
  requestId: string,
  request: CanUseToolRequest,
  decision: PermissionDecision,
): HostControlResponse {
  if (decision.decision === 'deny') {
    return createDenyResponse(requestId, decision.message ?? PERMISSION_DENIED_MESSAGE);
  }
  const suggestions = request.permission_suggestions;
  const isRemembered = decision.remember === true && suggestions !== undefined && suggestions.length > 0;
  // "Remember" lasts for the run: the CLI may suggest writing the rule to local, project or user settings
  // (claude-cli-protocol.md §8.2), which would outlive the run and reach other ideas on the VM.
  const forThisSession = isRemembered ? suggestions.map((rule) => ({ ...rule, destination: 'session' })) : [];
  return createAllowResponse(
    requestId,
    request.input,
    isRemembered ? { updatedPermissions: forThisSession } : {},
  );
}
