import { z } from 'zod';
import {
  CliControlCancelRequestMessageSchema,
  CliControlRequestMessageSchema,
  CliControlResponseMessageSchema,
} from './cli-control.ts';
import { describeFirstIssue } from './cli-issue-reason.ts';
import { isJsonObject } from './cli-json-object.ts';
import {
  CliAssistantMessageSchema,
  CliStreamEventMessageSchema,
  CliToolProgressMessageSchema,
  CliUserMessageSchema,
} from './cli-messages.ts';
import { CliResultMessageSchema } from './cli-result.ts';
import { pickLineSchemas } from './cli-routes.ts';
import { CliSystemMessageSchema } from './cli-system.ts';

/**
 * What any stdout line that is not a valid known message becomes (§3: "Parsers must ignore unknown
 * `type`/`subtype` values"; house style: never a crash, never dropped). `raw` is the value as JSON.parse gave it.
 */
export const UnknownCliMessageSchema = z.object({
  type: z.literal('unknown'),
  originalType: z.string().optional(),
  originalSubtype: z.string().optional(),
  reason: z.string(),
  raw: z.unknown(),
});
export type UnknownCliMessage = z.infer<typeof UnknownCliMessageSchema>;

/**
 * Every value parseCliOutput returns. Parsing one of them again with this schema gives the same value, which
 * matters because `ParsedMessage` embeds it and is parsed again on the far side of the WebSocket.
 */
export const CliMessageSchema = z.discriminatedUnion('type', [
  CliSystemMessageSchema,
  CliAssistantMessageSchema,
  CliUserMessageSchema,
  CliResultMessageSchema,
  CliStreamEventMessageSchema,
  CliToolProgressMessageSchema,
  CliControlRequestMessageSchema,
  CliControlResponseMessageSchema,
  CliControlCancelRequestMessageSchema,
  UnknownCliMessageSchema,
]);
export type CliMessage = z.infer<typeof CliMessageSchema>;

/** Where a line claimed to come from; for a control_request the subtype is `request.subtype`. */
function describeOrigin(
  line: Record<string, unknown>,
): Pick<UnknownCliMessage, 'originalType' | 'originalSubtype'> {
  const origin: Pick<UnknownCliMessage, 'originalType' | 'originalSubtype'> = {};
  if (typeof line.type === 'string') origin.originalType = line.type;
  const subtype =
    line.type === 'control_request' && isJsonObject(line.request) ? line.request.subtype : line.subtype;
  if (typeof subtype === 'string') origin.originalSubtype = subtype;
  return origin;
}

function describeNonObject(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'an array' : typeof value;
}

/**
 * Turns one JSON value from the CLI's stdout into a typed message. Never throws for any value JSON.parse can
 * return: what is not a valid known message comes back as the `unknown` variant, `raw` being the value itself.
 */
export function parseCliOutput(value: unknown): CliMessage {
  if (!isJsonObject(value)) {
    return { type: 'unknown', reason: `expected a JSON object, got ${describeNonObject(value)}`, raw: value };
  }
  const schemas = pickLineSchemas(value);
  if (typeof schemas === 'string')
    return { type: 'unknown', ...describeOrigin(value), reason: schemas, raw: value };
  // The common case: the line is valid as it is, and is returned without being copied (cli-routes.ts).
  if (schemas.identity.validate(value)) return value;
  const parsed = schemas.parser.safeParse(value);
  if (parsed.success) return parsed.data;
  return { type: 'unknown', ...describeOrigin(value), reason: describeFirstIssue(parsed.error), raw: value };
}
