import { z } from 'zod';

/**
 * The parts of an Anthropic Messages request that tests look at. Loose: whatever else the CLI sends is kept, so a
 * test can assert on any of it.
 */
export const RequestContentBlockSchema = z.looseObject({
  type: z.string(),
  text: z.string().optional(),
  tool_use_id: z.string().optional(),
  content: z.unknown().optional(),
  is_error: z.boolean().optional(),
});
export type RequestContentBlock = z.infer<typeof RequestContentBlockSchema>;

export const RequestMessageSchema = z.looseObject({
  role: z.string(),
  content: z.union([z.string(), z.array(RequestContentBlockSchema)]),
});
export type RequestMessage = z.infer<typeof RequestMessageSchema>;

export const MessagesRequestBodySchema = z.looseObject({
  model: z.string().optional(),
  stream: z.boolean().optional(),
  messages: z.array(RequestMessageSchema).default([]),
  tools: z.array(z.looseObject({ name: z.string() })).optional(),
  system: z.unknown().optional(),
});
export type MessagesRequestBody = z.infer<typeof MessagesRequestBodySchema>;

export interface RecordedRequest {
  /** 0-based position among `POST /v1/messages` requests. */
  index: number;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: MessagesRequestBody;
}

/** Every text the conversation holds, in order: plain-string contents, text blocks and string tool results. */
export function collectTexts(request: RecordedRequest): string[] {
  const texts: string[] = [];
  for (const message of request.body.messages) {
    if (typeof message.content === 'string') {
      texts.push(message.content);
      continue;
    }
    for (const block of message.content) {
      if (block.text !== undefined) texts.push(block.text);
      if (typeof block.content === 'string') texts.push(block.content);
    }
  }
  return texts;
}

/** The tool_result blocks the model was sent in this request. */
export function collectToolResults(request: RecordedRequest): RequestContentBlock[] {
  return request.body.messages.flatMap((message) =>
    typeof message.content === 'string'
      ? []
      : message.content.filter((block) => block.type === 'tool_result'),
  );
}
