import {
  ASK_USER_QUESTION_TOOL_NAME,
  isCanUseToolRequest,
  type CanUseToolRequest,
  type CliControlRequestMessage,
  type RunMode,
} from '@catalyst/protocol';
import { READ_ONLY_TOOLS, answerControlRequest, type ControlAnswer } from './tool-policy.ts';

/**
 * Which `can_use_tool` requests wait for a person instead of being answered at once (protocol §8.2, §8.3):
 * AskUserQuestion when questions are routed, and in build with permissionPolicy `ask` every tool that is not
 * read-only. The CLI waits indefinitely for either (§8.2), so the answer comes later, through the driver.
 */

export interface AskPerson {
  questions?: boolean;
  permissions?: boolean;
}

export type PromptKind = 'question' | 'permission';

export type ControlDecision =
  | { kind: 'reply'; answer: ControlAnswer }
  | { kind: 'ask'; prompt: PromptKind; requestId: string; request: CanUseToolRequest };

const readOnlyTools: ReadonlySet<string> = new Set(READ_ONLY_TOOLS);

export function decideControlRequest(
  message: CliControlRequestMessage,
  options: { mode: RunMode; isStopping: boolean; askPerson: AskPerson },
): ControlDecision {
  const { request, request_id: requestId } = message;
  if (isCanUseToolRequest(request) && !options.isStopping) {
    const prompt = promptFor(request, options);
    if (prompt !== undefined) return { kind: 'ask', prompt, requestId, request };
  }
  return { kind: 'reply', answer: answerControlRequest(message, options) };
}

function promptFor(
  request: CanUseToolRequest,
  options: { mode: RunMode; askPerson: AskPerson },
): PromptKind | undefined {
  if (request.tool_name === ASK_USER_QUESTION_TOOL_NAME) {
    return options.askPerson.questions === true ? 'question' : undefined;
  }
  const isAsked = options.mode === 'build' && options.askPerson.permissions === true;
  return isAsked && !readOnlyTools.has(request.tool_name) ? 'permission' : undefined;
}
