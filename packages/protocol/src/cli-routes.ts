import { z } from 'zod';
import { KnownAssistantContentBlockSchema, KnownUserContentBlockSchema } from './cli-content-blocks.ts';
import {
  CanUseToolRequestSchema,
  CliControlCancelRequestMessageSchema,
  CliControlRequestMessageSchema,
  CliControlResponseMessageSchema,
  GenericControlRequestBodySchema,
} from './cli-control.ts';
import {
  AssistantApiMessageSchema,
  CliAssistantMessageSchema,
  CliStreamEventMessageSchema,
  CliToolProgressMessageSchema,
  CliUserMessageSchema,
  UserApiMessageSchema,
} from './cli-messages.ts';
import { isJsonObject } from './cli-json-object.ts';
import type { CliMessage } from './cli-message.ts';
import {
  ResultErrorMessageSchema,
  ResultErrorSubtypeSchema,
  ResultSuccessMessageSchema,
} from './cli-result.ts';
import { CliSystemMessageSchema } from './cli-system.ts';

/**
 * The schemas parseCliOutput uses for one kind of line (picked by hand from `type` and `subtype`, never by trying
 * a union member by member). Parsing copies every member of every object into a new one, which on a 1 KB line
 * costs about as much as JSON.parse itself. So a line is first only *validated* against `identity`, a schema
 * whose parse would return its input unchanged (no transform anywhere in it): on success the line itself is the
 * typed message, with every unknown field still in place. Only a line that fails it (an unknown content block
 * to convert, or an invalid line to explain) is parsed with `parser`.
 */
export interface LineSchemas {
  readonly identity: z.ZodType<CliMessage, CliMessage>;
  readonly parser: z.ZodType<CliMessage>;
}

interface LineRoutes {
  readonly byType: ReadonlyMap<string, LineSchemas>;
  /** For the types whose lines are told apart by `subtype`: system and result. */
  readonly bySubtype: ReadonlyMap<string, ReadonlyMap<string, LineSchemas>>;
  /** control_request lines are told apart by `request.subtype`. */
  readonly canUseTool: LineSchemas;
  readonly genericControlRequest: LineSchemas;
}

/** z.compile generates a specialised validator; it falls back to the ordinary parser where it cannot. */
function compileTransformFree(schema: z.ZodType<CliMessage, CliMessage>): LineSchemas {
  const compiled = z.compile(schema);
  return { identity: compiled, parser: compiled };
}

function compileAssistantSchemas(): LineSchemas {
  const knownBlocksOnly = CliAssistantMessageSchema.extend({
    message: AssistantApiMessageSchema.extend({ content: z.array(KnownAssistantContentBlockSchema) }),
  });
  return { identity: z.compile(knownBlocksOnly), parser: z.compile(CliAssistantMessageSchema) };
}

function compileUserSchemas(): LineSchemas {
  const knownBlocksOnly = CliUserMessageSchema.extend({
    message: UserApiMessageSchema.extend({
      content: z.union([z.array(KnownUserContentBlockSchema), z.string()]),
    }),
  });
  return { identity: z.compile(knownBlocksOnly), parser: z.compile(CliUserMessageSchema) };
}

function compileResultRoutes(): ReadonlyMap<string, LineSchemas> {
  const error = compileTransformFree(ResultErrorMessageSchema);
  return new Map([
    ['success', compileTransformFree(ResultSuccessMessageSchema)],
    ...ResultErrorSubtypeSchema.options.map((subtype): [string, LineSchemas] => [subtype, error]),
  ]);
}

function compileSystemRoutes(): ReadonlyMap<string, LineSchemas> {
  return new Map(
    CliSystemMessageSchema.options.map((schema) => [
      schema.shape.subtype.value,
      compileTransformFree(schema),
    ]),
  );
}

function buildLineRoutes(): LineRoutes {
  return {
    byType: new Map([
      ['assistant', compileAssistantSchemas()],
      ['user', compileUserSchemas()],
      ['stream_event', compileTransformFree(CliStreamEventMessageSchema)],
      ['tool_progress', compileTransformFree(CliToolProgressMessageSchema)],
      ['control_response', compileTransformFree(CliControlResponseMessageSchema)],
      ['control_cancel_request', compileTransformFree(CliControlCancelRequestMessageSchema)],
    ]),
    bySubtype: new Map([
      ['system', compileSystemRoutes()],
      ['result', compileResultRoutes()],
    ]),
    canUseTool: compileTransformFree(
      CliControlRequestMessageSchema.extend({ request: CanUseToolRequestSchema }),
    ),
    genericControlRequest: compileTransformFree(
      CliControlRequestMessageSchema.extend({ request: GenericControlRequestBodySchema }),
    ),
  };
}

let routes: LineRoutes | undefined;

/**
 * The schemas for this line, or why there are none (an unknown `type` or `subtype`, §3: "Parsers must ignore
 * unknown `type`/`subtype` values"). The tables are compiled on first use, so importing the protocol package
 * (the browser does) costs nothing.
 */
export function pickLineSchemas(line: Record<string, unknown>): LineSchemas | string {
  const type = line.type;
  if (typeof type !== 'string') return 'missing a string "type"';
  routes ??= buildLineRoutes();
  if (type === 'control_request') {
    const subtype = isJsonObject(line.request) ? line.request.subtype : undefined;
    return subtype === 'can_use_tool' ? routes.canUseTool : routes.genericControlRequest;
  }
  const subtypes = routes.bySubtype.get(type);
  if (subtypes === undefined) return routes.byType.get(type) ?? `unknown type "${type}"`;
  const subtype = line.subtype;
  if (typeof subtype !== 'string') return `${type} line without a string "subtype"`;
  return subtypes.get(subtype) ?? `unknown ${type} subtype "${subtype}"`;
}
