import { describeFirstIssue } from './cli-issue-reason.ts';
import { isJsonObject } from './cli-json-object.ts';
import { pickLineSchemas } from './cli-routes.ts';
import {
  CliMessageSchema,
  UnknownCliMessageSchema,
  type CliMessage,
  type UnknownCliMessage,
} from './cli-message.ts';

export { CliMessageSchema, UnknownCliMessageSchema, type CliMessage, type UnknownCliMessage };

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
