import { z } from 'zod';
import { PermissionUpdateSchema, type PermissionUpdate } from './cli-control.ts';
import { JsonObjectSchema } from './cli-json-object.ts';

/**
 * What Catalyst writes to the CLI's stdin with `--input-format stream-json` (§7, §8): one JSON object per line.
 * These shapes are ours, so they are strict. The constructors return the object; the caller serialises it.
 * A line that is not valid JSON kills the CLI (§7.1), so always write JSON.stringify of one of these.
 */

export const HostTextBlockSchema = z.strictObject({
  type: z.literal('text'),
  text: z.string(),
});
export type HostTextBlock = z.infer<typeof HostTextBlockSchema>;

/**
 * §7.1: the shape the SDK writes, accepted as is; `session_id` may be "". With `--replay-user-messages` the CLI
 * echoes `uuid` back on an `isReplay` user line (§7.1 [13f]).
 */
export const HostUserMessageSchema = z.strictObject({
  type: z.literal('user'),
  session_id: z.string(),
  message: z.strictObject({
    role: z.literal('user'),
    content: z.array(HostTextBlockSchema).min(1),
  }),
  parent_tool_use_id: z.null(),
  uuid: z.string().optional(),
});
export type HostUserMessage = z.infer<typeof HostUserMessageSchema>;

export function createUserMessage(text: string, options: { uuid?: string } = {}): HostUserMessage {
  const message: HostUserMessage = {
    type: 'user',
    session_id: '',
    message: { role: 'user', content: [{ type: 'text', text }] },
    parent_tool_use_id: null,
  };
  if (options.uuid !== undefined) message.uuid = options.uuid;
  return message;
}

/**
 * §8.2: `updatedInput` is REQUIRED: `{"behavior":"allow"}` alone fails the CLI's validation and counts as a
 * denial [21a]. Echo `request.input` to run the tool unchanged. `updatedPermissions` takes the request's
 * `permission_suggestions` back, e.g. setMode acceptEdits [21d].
 */
export const PermissionAllowSchema = z.strictObject({
  behavior: z.literal('allow'),
  updatedInput: JsonObjectSchema,
  updatedPermissions: z.array(PermissionUpdateSchema).optional(),
});
export type PermissionAllow = z.infer<typeof PermissionAllowSchema>;

/** §8.2: `message` becomes the tool_result text; `interrupt: true` also ends the turn (error_during_execution). */
export const PermissionDenySchema = z.strictObject({
  behavior: z.literal('deny'),
  message: z.string(),
  interrupt: z.boolean().optional(),
});
export type PermissionDeny = z.infer<typeof PermissionDenySchema>;

export const PermissionResultSchema = z.discriminatedUnion('behavior', [
  PermissionAllowSchema,
  PermissionDenySchema,
]);
export type PermissionResult = z.infer<typeof PermissionResultSchema>;

/** §8: the answer to a CLI `control_request`. Only `can_use_tool` expects a success payload from a host. */
export const HostControlResponseSchema = z.strictObject({
  type: z.literal('control_response'),
  response: z.discriminatedUnion('subtype', [
    z.strictObject({
      subtype: z.literal('success'),
      request_id: z.string(),
      response: PermissionResultSchema,
    }),
    z.strictObject({
      subtype: z.literal('error'),
      request_id: z.string(),
      error: z.string(),
    }),
  ]),
});
export type HostControlResponse = z.infer<typeof HostControlResponseSchema>;

export function createAllowResponse(
  requestId: string,
  updatedInput: Record<string, unknown>,
  options: { updatedPermissions?: PermissionUpdate[] } = {},
): HostControlResponse {
  const allow: PermissionAllow = { behavior: 'allow', updatedInput };
  if (options.updatedPermissions !== undefined) allow.updatedPermissions = options.updatedPermissions;
  return {
    type: 'control_response',
    response: { subtype: 'success', request_id: requestId, response: allow },
  };
}

export function createDenyResponse(
  requestId: string,
  message: string,
  options: { interrupt?: boolean } = {},
): HostControlResponse {
  const deny: PermissionDeny = { behavior: 'deny', message };
  if (options.interrupt !== undefined) deny.interrupt = options.interrupt;
  return {
    type: 'control_response',
    response: { subtype: 'success', request_id: requestId, response: deny },
  };
}

/** §8.2 [21b]: the tool gets "Tool permission request failed: Error: <error>", counted as a denial. */
export function createErrorResponse(requestId: string, error: string): HostControlResponse {
  return { type: 'control_response', response: { subtype: 'error', request_id: requestId, error } };
}

/** §0: the values `--permission-mode` and `set_permission_mode` take. */
export const PermissionModeSchema = z.enum([
  'default',
  'acceptEdits',
  'plan',
  'dontAsk',
  'bypassPermissions',
]);
export type PermissionMode = z.infer<typeof PermissionModeSchema>;

/** §8.4: the graceful way to stop a turn; its result is `error_during_execution`. */
export const InterruptRequestSchema = z.strictObject({ subtype: z.literal('interrupt') });

/** §8.1: optional; the SDK sends `hooks: null`, measured as accepted. */
export const InitializeRequestSchema = z.strictObject({ subtype: z.literal('initialize'), hooks: z.null() });

/** §8.5: answered with `{"mode":…}` plus a `system/status` line carrying `permissionMode`. */
export const SetPermissionModeRequestSchema = z.strictObject({
  subtype: z.literal('set_permission_mode'),
  mode: PermissionModeSchema,
});

/** §8: `request_id` is ours to choose and must be unique; the CLI's answer carries it back. */
export const HostControlRequestSchema = z.strictObject({
  type: z.literal('control_request'),
  request_id: z.string().min(1),
  request: z.discriminatedUnion('subtype', [
    InterruptRequestSchema,
    InitializeRequestSchema,
    SetPermissionModeRequestSchema,
  ]),
});
export type HostControlRequest = z.infer<typeof HostControlRequestSchema>;

export function createInterruptRequest(requestId: string): HostControlRequest {
  return { type: 'control_request', request_id: requestId, request: { subtype: 'interrupt' } };
}

export function createInitializeRequest(requestId: string): HostControlRequest {
  return { type: 'control_request', request_id: requestId, request: { subtype: 'initialize', hooks: null } };
}

export function createSetPermissionModeRequest(requestId: string, mode: PermissionMode): HostControlRequest {
  return {
    type: 'control_request',
    request_id: requestId,
    request: { subtype: 'set_permission_mode', mode },
  };
}
