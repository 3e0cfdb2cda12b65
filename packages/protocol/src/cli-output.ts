import { z } from 'zod';

// STUB: replaced by the full catalogue of the CLI's stdout messages (see docs/protocol.md).
export const UnknownCliMessageSchema = z.object({
  type: z.literal('unknown'),
  originalType: z.string().optional(),
  originalSubtype: z.string().optional(),
  reason: z.string(),
  raw: z.unknown(),
});
export type UnknownCliMessage = z.infer<typeof UnknownCliMessageSchema>;
export const CliMessageSchema = UnknownCliMessageSchema;
export type CliMessage = z.infer<typeof CliMessageSchema>;

/** Never throws for any value JSON.parse can return. */
export function parseCliOutput(value: unknown): CliMessage {
  return { type: 'unknown', reason: 'stub', raw: value };
}
