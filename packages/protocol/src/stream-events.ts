import { z } from 'zod';
import { CliMessageSchema } from './cli-output.ts';

/**
 * What the backend's stream parser yields for each line of the CLI's stdout. A line is never dropped silently:
 * it is a typed message, an `unparsable_line` (not JSON) or a `line_too_long` (over the configured ceiling).
 */
export const ParsedMessageSchema = z.object({
  kind: z.literal('message'),
  message: CliMessageSchema,
  byteLength: z.number().int().nonnegative(),
});
export type ParsedMessage = z.infer<typeof ParsedMessageSchema>;

export const UnparsableLineSchema = z.object({
  kind: z.literal('unparsable_line'),
  /** The start of the line (at most 200 characters), for a person to recognise it. */
  sample: z.string(),
  byteLength: z.number().int().nonnegative(),
  error: z.string(),
});
export type UnparsableLine = z.infer<typeof UnparsableLineSchema>;

export const LineTooLongSchema = z.object({
  kind: z.literal('line_too_long'),
  byteLength: z.number().int().nonnegative(),
  limitBytes: z.number().int().positive(),
});
export type LineTooLong = z.infer<typeof LineTooLongSchema>;

export const StreamEventSchema = z.discriminatedUnion('kind', [
  ParsedMessageSchema,
  UnparsableLineSchema,
  LineTooLongSchema,
]);
export type StreamEvent = z.infer<typeof StreamEventSchema>;
