import { z } from 'zod';
import { JsonObjectSchema } from './cli-json-object.ts';

/**
 * Control messages the CLI writes to stdout (§8). A `can_use_tool` request blocks the turn until the host answers
 * (§8.2: "An unanswered `can_use_tool` waits indefinitely"), so its schema requires only what the answer needs
 * and what the user must see; everything else is optional.
 */

/**
 * §8.2: "addRules", "addDirectories", "setMode", … This is the CLI's vocabulary, and the host sends these objects
 * back verbatim as `updatedPermissions`, so only `type` is typed and all other fields are kept.
 */
export const PermissionUpdateSchema = z.looseObject({
  type: z.string(),
  destination: z.string().optional(),
});
export type PermissionUpdate = z.infer<typeof PermissionUpdateSchema>;

/** §8.2, §8.3 (AskUserQuestion arrives through this request too). */
export const CanUseToolRequestSchema = z.looseObject({
  subtype: z.literal('can_use_tool'),
  tool_name: z.string(),
  display_name: z.string().optional(),
  input: JsonObjectSchema,
  description: z.string().optional(),
  permission_suggestions: z.array(PermissionUpdateSchema).optional(),
  blocked_path: z.string().optional(),
  tool_use_id: z.string().optional(),
});
export type CanUseToolRequest = z.infer<typeof CanUseToolRequestSchema>;

/**
 * Any other request the CLI may send. Its subtype excludes `can_use_tool`, so a malformed `can_use_tool` never
 * passes for a generic request. The host should answer it with an error envelope, as the CLI does (§8).
 */
export const GenericControlRequestBodySchema = z.looseObject({
  subtype: z
    .string()
    .refine((subtype) => subtype !== 'can_use_tool', 'a can_use_tool request failed validation'),
});
export type GenericControlRequestBody = z.infer<typeof GenericControlRequestBodySchema>;

export const CliControlRequestMessageSchema = z.looseObject({
  type: z.literal('control_request'),
  request_id: z.string(),
  request: z.union([CanUseToolRequestSchema, GenericControlRequestBodySchema]),
});
export type CliControlRequestMessage = z.infer<typeof CliControlRequestMessageSchema>;

/** A generic body's `subtype` is a plain string, so TypeScript cannot narrow on it; this guard can. */
export function isCanUseToolRequest(
  request: CliControlRequestMessage['request'],
): request is CanUseToolRequest {
  return request.subtype === 'can_use_tool';
}

/**
 * The least a host needs to answer a control request. Use it on the `raw` of an `unknown` message whose
 * `originalType` is "control_request": the CLI is still waiting for an answer to it.
 */
export const ControlRequestEnvelopeSchema = z.looseObject({
  type: z.literal('control_request'),
  request_id: z.string(),
});
export type ControlRequestEnvelope = z.infer<typeof ControlRequestEnvelopeSchema>;

/** §8: the CLI's answer to a host request; `response` is absent on some successes (e.g. `interrupt`, §8.4). */
export const CliControlResponseMessageSchema = z.looseObject({
  type: z.literal('control_response'),
  response: z.discriminatedUnion('subtype', [
    z.looseObject({
      subtype: z.literal('success'),
      request_id: z.string(),
      response: JsonObjectSchema.optional(),
    }),
    z.looseObject({
      subtype: z.literal('error'),
      request_id: z.string(),
      error: z.string(),
    }),
  ]),
});
export type CliControlResponseMessage = z.infer<typeof CliControlResponseMessageSchema>;

/** §8.4 [16c]: the CLI withdraws its own pending `can_use_tool`; a late answer is ignored. */
export const CliControlCancelRequestMessageSchema = z.looseObject({
  type: z.literal('control_cancel_request'),
  request_id: z.string(),
});
export type CliControlCancelRequestMessage = z.infer<typeof CliControlCancelRequestMessageSchema>;
