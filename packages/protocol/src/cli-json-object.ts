import { z } from 'zod';

export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A JSON object whose members we do not type (tool input, structured tool output, per-model usage). Unlike
 * `z.record`, it checks the value without copying it member by member: such objects can hold a whole file
 * (§1: a 10 MB `tool_use_result`), and copying them would cost more than JSON.parse did.
 */
export const JsonObjectSchema = z.custom<Record<string, unknown>>(
  isJsonObject,
  'Invalid input: expected object',
);
export type JsonObject = z.infer<typeof JsonObjectSchema>;
