import type { CanUseToolRequest, HostControlResponse, PermissionUpdate } from '@catalyst/protocol';

/**
 * "Allow and remember" under permissionPolicy `ask`, kept by Catalyst itself for the rest of the run.
 *
 * Under `ask` Catalyst passes the CLI an ask rule for every tool that writes or executes (tool-policy.ts), so a
 * user's or project's allow rule cannot skip the person. Measured on 2.1.331: a request an ask rule covers comes
 * without `permission_suggestions`, and no `updatedPermissions` in the answer stops the CLI asking again
 * (docs/protocol.md, "Settings"). So Catalyst offers its own suggestion (an allow rule for the session, in the
 * CLI's own shape) and, once the person chose it, answers the same kind of call itself: the same command for
 * Bash, the same tool otherwise.
 */

const FILE_EDIT_TOOLS: ReadonlySet<string> = new Set(['Edit', 'MultiEdit', 'Write', 'NotebookEdit']);

/** The CLI's suggestions, or, when it gave none, Catalyst's own: allow this kind of call for the session. */
export function withRememberSuggestion(request: CanUseToolRequest): CanUseToolRequest {
  const given = request.permission_suggestions;
  if (given !== undefined && given.length > 0) return request;
  const command = bashCommand(request);
  const rule =
    command === undefined ? { toolName: request.tool_name } : { toolName: 'Bash', ruleContent: command };
  const suggestion: PermissionUpdate = {
    type: 'addRules',
    rules: [rule],
    behavior: 'allow',
    destination: 'session',
  };
  return { ...request, permission_suggestions: [suggestion] };
}

export class RememberedPermissions {
  readonly #keys = new Set<string>();

  /** Notes the call an answer allowed with `updatedPermissions` (the person chose "remember"). */
  noteAnswer(request: CanUseToolRequest, response: HostControlResponse): void {
    if (isRememberingAllow(response)) this.#keys.add(keyOf(request));
  }

  covers(request: CanUseToolRequest): boolean {
    return this.#keys.has(keyOf(request));
  }
}

function isRememberingAllow(response: HostControlResponse): boolean {
  const inner = response.response;
  if (inner.subtype !== 'success' || inner.response.behavior !== 'allow') return false;
  return (inner.response.updatedPermissions?.length ?? 0) > 0;
}

function keyOf(request: CanUseToolRequest): string {
  const command = bashCommand(request);
  if (command !== undefined) return `Bash\n${command}`;
  // The CLI's own suggestion for a file edit is acceptEdits: every file edit, whichever of these tools.
  return FILE_EDIT_TOOLS.has(request.tool_name) ? 'file edits' : request.tool_name;
}

function bashCommand(request: CanUseToolRequest): string | undefined {
  const command = request.input.command;
  return request.tool_name === 'Bash' && typeof command === 'string' ? command : undefined;
}
