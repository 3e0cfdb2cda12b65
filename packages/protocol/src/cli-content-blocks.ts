import { z } from 'zod';
import { JsonObjectSchema } from './cli-json-object.ts';

/**
 * Content blocks inside the CLI's `assistant` and `user` messages (Anthropic Messages API blocks, §3.2, §3.3).
 * A block whose `type` we do not know becomes an `unknown` block, so a new block kind (images, server tools, …)
 * costs us that block, not the whole line. A block of a known type that fails validation still fails the message:
 * that is a shape change worth seeing.
 */

export const TextBlockSchema = z.looseObject({
  type: z.literal('text'),
  text: z.string(),
});
export type TextBlock = z.infer<typeof TextBlockSchema>;

export const ToolUseBlockSchema = z.looseObject({
  type: z.literal('tool_use'),
  id: z.string(),
  name: z.string(),
  input: JsonObjectSchema,
});
export type ToolUseBlock = z.infer<typeof ToolUseBlockSchema>;

/** §3.2: thinking arrives as its own assistant line; `signature` is kept but not typed. */
export const ThinkingBlockSchema = z.looseObject({
  type: z.literal('thinking'),
  thinking: z.string(),
});
export type ThinkingBlock = z.infer<typeof ThinkingBlockSchema>;

export const RedactedThinkingBlockSchema = z.looseObject({
  type: z.literal('redacted_thinking'),
  data: z.string(),
});
export type RedactedThinkingBlock = z.infer<typeof RedactedThinkingBlockSchema>;

/**
 * What an unrecognised block becomes. It is ours, and it is also a member of every block union, so parsing an
 * already parsed message again gives the same value (a `ParsedMessage` crosses the WebSocket and is parsed there).
 */
export const UnknownContentBlockSchema = z.strictObject({
  type: z.literal('unknown'),
  originalType: z.string(),
  raw: z.unknown(),
});
export type UnknownContentBlock = z.infer<typeof UnknownContentBlockSchema>;

function createUnknownBlockFallback(knownTypes: readonly string[]) {
  const known = new Set(knownTypes);
  return z
    .looseObject({
      type: z.string().refine((type) => !known.has(type), 'a block of this type failed validation'),
    })
    .transform((raw): UnknownContentBlock => ({ type: 'unknown', originalType: raw.type, raw }));
}

/*
 * Each block list comes in two forms. `Known…` admits only the blocks we type: parsing with it returns the value
 * it was given, so parseCliOutput can merely validate a line against it (no copy; see cli-routes.ts). The
 * lenient form adds the unknown-block fallback and is the one that defines the message types.
 */

export const KnownToolResultContentBlockSchema = z.discriminatedUnion('type', [
  TextBlockSchema,
  UnknownContentBlockSchema,
]);

/** §3.3: the subagent result carries an array of text blocks; other tools may put images here. */
export const ToolResultContentBlockSchema = z.union([
  KnownToolResultContentBlockSchema,
  createUnknownBlockFallback(['text', 'unknown']),
]);
export type ToolResultContentBlock = z.infer<typeof ToolResultContentBlockSchema>;

/** §3.3, §12: `content` is a string or an array of blocks; `is_error` is absent (Read), false (Bash) or true. */
export const ToolResultBlockSchema = z.looseObject({
  type: z.literal('tool_result'),
  tool_use_id: z.string(),
  content: z.union([z.string(), z.array(ToolResultContentBlockSchema)]),
  is_error: z.boolean().optional(),
});
export type ToolResultBlock = z.infer<typeof ToolResultBlockSchema>;

export const KnownToolResultBlockSchema = ToolResultBlockSchema.extend({
  content: z.union([z.string(), z.array(KnownToolResultContentBlockSchema)]),
});

export const KnownAssistantContentBlockSchema = z.discriminatedUnion('type', [
  TextBlockSchema,
  ToolUseBlockSchema,
  ThinkingBlockSchema,
  RedactedThinkingBlockSchema,
  UnknownContentBlockSchema,
]);

export const AssistantContentBlockSchema = z.union([
  KnownAssistantContentBlockSchema,
  createUnknownBlockFallback(['text', 'tool_use', 'thinking', 'redacted_thinking', 'unknown']),
]);
export type AssistantContentBlock = z.infer<typeof AssistantContentBlockSchema>;

export const KnownUserContentBlockSchema = z.discriminatedUnion('type', [
  KnownToolResultBlockSchema,
  TextBlockSchema,
  UnknownContentBlockSchema,
]);

export const UserContentBlockSchema = z.union([
  z.discriminatedUnion('type', [ToolResultBlockSchema, TextBlockSchema, UnknownContentBlockSchema]),
  createUnknownBlockFallback(['tool_result', 'text', 'unknown']),
]);
export type UserContentBlock = z.infer<typeof UserContentBlockSchema>;
