import type { RecordedRequest } from './messages-request.ts';

/**
 * What the scripted model answers. A script is a queue of replies, one per `POST /v1/messages`, in order; each
 * reply is a whole assistant message (streamed as SSE, or as JSON for the CLI's non-streaming fallback), an HTTP
 * error, or a stall that sends a few events and then nothing until the server closes.
 */
export type ScriptedBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string }
  | { type: 'tool_use'; name: string; input: Record<string, unknown>; id?: string };

export type ScriptedReply =
  | { kind: 'message'; content: ScriptedBlock[]; stopReason?: 'end_turn' | 'tool_use' | 'max_tokens' }
  | { kind: 'http_error'; status: number; message?: string; retryAfterSeconds?: number }
  | { kind: 'stall'; partialText?: string };

/** A reply chosen per request: lets a test answer from what the model was sent. */
export type ReplyFunction = (request: RecordedRequest) => ScriptedReply;

export function text(value: string): ScriptedReply {
  return { kind: 'message', content: [{ type: 'text', text: value }] };
}

export function toolUse(name: string, input: Record<string, unknown>, preface?: string): ScriptedReply {
  const content: ScriptedBlock[] = preface === undefined ? [] : [{ type: 'text', text: preface }];
  content.push({ type: 'tool_use', name, input });
  return { kind: 'message', content };
}

export function thinkingThenText(thinking: string, answer: string): ScriptedReply {
  return {
    kind: 'message',
    content: [
      { type: 'thinking', thinking },
      { type: 'text', text: answer },
    ],
  };
}

export function httpError(status: number, message?: string): ScriptedReply {
  return message === undefined ? { kind: 'http_error', status } : { kind: 'http_error', status, message };
}

export function stall(partialText?: string): ScriptedReply {
  return partialText === undefined ? { kind: 'stall' } : { kind: 'stall', partialText };
}
