import { z } from 'zod';
import {
  CliControlCancelRequestMessageSchema,
  CliControlRequestMessageSchema,
  CliControlResponseMessageSchema,
} from './cli-control.ts';
import {
  CliAssistantMessageSchema,
  CliStreamEventMessageSchema,
  CliToolProgressMessageSchema,
  CliUserMessageSchema,
} from './cli-messages.ts';
import { CliResultMessageSchema } from './cli-result.ts';
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
