import type { RecordedRequest } from './messages-request.ts';

/**
 * What the scripted model answers. A script is a queue of replies, one per `POST /v1/messages`, in order; each
 * reply is a whole assistant message (streamed as SSE, or as JSON for the CLI's non-streaming fallback), an HTTP
 * error, a stall that sends a few events and then nothing until the server closes, or a stream that breaks off
 * with an SSE `error` event after some text (the CLI then retries once without streaming, protocol §3.6).
 */
export type ScriptedBlock =
  /** `deltas`: how the SSE stream splits `text` into text_delta events (they must join to it); one by default. */
  | { type: 'text'; text: string; deltas?: readonly string[] }
  | { type: 'thinking'; thinking: string }
  | { type: 'tool_use'; name: string; input: Record<string, unknown>; id?: string };

export type ScriptedReply =
  | { kind: 'message'; content: ScriptedBlock[]; stopReason?: 'end_turn' | 'tool_use' | 'max_tokens' }
  | { kind: 'http_error'; status: number; message?: string; retryAfterSeconds?: number }
  | { kind: 'stall'; partialText?: string }
  | { kind: 'stream_error'; partialText: string };

/** A reply chosen per request: lets a test answer from what the model was sent. */
export type ReplyFunction = (request: RecordedRequest) => ScriptedReply;

export function text(value: string): ScriptedReply {
  return { kind: 'message', content: [{ type: 'text', text: value }] };
}

/** A text reply streamed as one text_delta per part (`--include-partial-messages` shows each, §3.9). */
export function streamedText(...parts: string[]): ScriptedReply {
  return { kind: 'message', content: [{ type: 'text', text: parts.join(''), deltas: parts }] };
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

/** message_start, a text block's start and one delta of `partialText`, then an SSE `error` event, and the end. */
export function streamError(partialText: string): ScriptedReply {
  return { kind: 'stream_error', partialText };
}

/**
 * A Bash command that runs for `seconds`, for tests that act while a tool is running, and that the CLI runs without
 * asking (read-only commands only). Not a bare `sleep N`: newer CLIs (2.1.330 on; 2.1.197 ran it; docs/protocol.md
 * "CLI versions") refuse a standalone `sleep` of about 25 s or more, and a `sleep N && …` chain, before it runs;
 * `sh -c 'sleep N'` is not read-only, so it waits for a permission. The process it leaves is `sleep <seconds>`.
 */
export function longRunningCommand(seconds: number): string {
  return `echo started && sleep ${String(seconds)}`;
}

/**
 * A shell command that waits until `path` exists (a test creates it: "go"), for a tool or a preview that must still
 * be running when the test acts. Read-only for the CLI (`[` and `sleep`), so it runs without asking.
 */
export function waitForFile(path: string): string {
  return `while [ ! -e ${path} ]; do sleep 0.1; done`;
}
