import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { MessagesRequestBodySchema, type RecordedRequest } from './messages-request.ts';
import type { ReplyFunction, ScriptedReply } from './scripted-replies.ts';
import {
  contentBlockEvents,
  jsonMessage,
  messageStartEvent,
  stopReasonOf,
  streamErrorEvent,
  streamedMessage,
  toWireBlocks,
  type MessageIdentity,
} from './sse-message.ts';

/**
 * A scripted fake of the Anthropic Messages API on 127.0.0.1 (port 0), for driving the real claude CLI offline
 * (`ANTHROPIC_BASE_URL`). Each `POST /v1/messages` takes the next scripted reply and is recorded, so a test can
 * assert exactly what the model was sent. Measured against CLI 2.1.197: it sends one `HEAD /` reachability probe,
 * then one POST per model round-trip; nothing else with CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1.
 */
export interface ScriptedModel {
  readonly url: string;
  readonly requests: readonly RecordedRequest[];
  /** Adds replies to the end of the queue. */
  enqueue(...replies: ScriptedReply[]): void;
  /** How many queued replies no request has taken yet. */
  remainingReplies(): number;
  /** Drops the queued replies no request has taken (after a failed test, so the next one starts clean); how many. */
  discardReplies(): number;
  /** Resolves with the request at `index` once it has arrived. */
  waitForRequest(index: number): Promise<RecordedRequest>;
  close(): Promise<void>;
}

export interface ScriptedModelOptions {
  replies?: ScriptedReply[] | ReplyFunction;
}

const errorTypes: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  429: 'rate_limit_error',
  529: 'overloaded_error',
};

function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

function sendHttpError(
  response: ServerResponse,
  reply: Extract<ScriptedReply, { kind: 'http_error' }>,
): void {
  const headers: Record<string, string> = {};
  if (reply.retryAfterSeconds !== undefined) headers['retry-after'] = String(reply.retryAfterSeconds);
  const type = errorTypes[reply.status] ?? 'api_error';
  const message = reply.message ?? `scripted ${reply.status}`;
  sendJson(response, reply.status, { type: 'error', error: { type, message } }, headers);
}

function sendStall(
  response: ServerResponse,
  reply: Extract<ScriptedReply, { kind: 'stall' }>,
  id: MessageIdentity,
): void {
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  response.write(messageStartEvent(id));
  if (reply.partialText !== undefined) {
    // Start and one delta of a text block, never its stop: the stream goes silent mid-message.
    const [start, delta] = contentBlockEvents({ type: 'text', text: reply.partialText }, 0);
    response.write(`${start ?? ''}${delta ?? ''}`);
  }
}

function sendStreamError(
  response: ServerResponse,
  reply: Extract<ScriptedReply, { kind: 'stream_error' }>,
  id: MessageIdentity,
): void {
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  const [start, delta] = contentBlockEvents({ type: 'text', text: reply.partialText }, 0);
  response.end(
    `${messageStartEvent(id)}${start ?? ''}${delta ?? ''}${streamErrorEvent('scripted overload mid-stream')}`,
  );
}

function sendReply(response: ServerResponse, reply: ScriptedReply, request: RecordedRequest): void {
  const identity = { id: `msg_scripted_${request.index}`, model: request.body.model ?? 'claude-scripted' };
  switch (reply.kind) {
    case 'http_error':
      sendHttpError(response, reply);
      return;
    case 'stall':
      sendStall(response, reply, identity);
      return;
    case 'stream_error':
      sendStreamError(response, reply, identity);
      return;
    case 'message': {
      const blocks = toWireBlocks(reply.content, identity);
      const stopReason = reply.stopReason ?? stopReasonOf(blocks);
      if (request.body.stream !== true) {
        sendJson(response, 200, jsonMessage(blocks, identity, stopReason));
        return;
      }
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      response.end(streamedMessage(blocks, identity, stopReason));
      return;
    }
  }
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8');
}

function parseRequestBody(raw: string): RecordedRequest['body'] {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    value = {};
  }
  const parsed = MessagesRequestBodySchema.safeParse(value);
  return parsed.success ? parsed.data : { messages: [] };
}

export async function startScriptedModel(options: ScriptedModelOptions = {}): Promise<ScriptedModel> {
  const queue: ScriptedReply[] = Array.isArray(options.replies) ? [...options.replies] : [];
  const replyFunction = typeof options.replies === 'function' ? options.replies : undefined;
  const requests: RecordedRequest[] = [];
  const waiters = new Map<number, ((request: RecordedRequest) => void)[]>();
  const sockets = new Set<Socket>();

  function nextReply(request: RecordedRequest): ScriptedReply {
    if (replyFunction) return replyFunction(request);
    // An exhausted script answers 400, which the CLI does not retry: the run ends at once, visibly.
    return (
      queue.shift() ?? {
        kind: 'http_error',
        status: 400,
        message: `no scripted reply left for request ${request.index}`,
      }
    );
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = request.url ?? '/';
    const raw = await readBody(request);
    if (path.startsWith('/v1/messages/count_tokens')) {
      sendJson(response, 200, { input_tokens: 100 });
      return;
    }
    if (request.method !== 'POST' || !path.startsWith('/v1/messages')) {
      sendJson(response, request.method === 'HEAD' ? 200 : 404, {});
      return;
    }
    const recorded: RecordedRequest = {
      index: requests.length,
      path,
      headers: request.headers,
      body: parseRequestBody(raw),
    };
    requests.push(recorded);
    for (const resolve of waiters.get(recorded.index) ?? []) resolve(recorded);
    waiters.delete(recorded.index);
    sendReply(response, nextReply(recorded), recorded);
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      sendJson(response, 500, { type: 'error', error: { type: 'api_error', message: String(error) } });
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('scripted model: no TCP address');

  return {
    url: `http://127.0.0.1:${address.port}`,
    requests,
    enqueue: (...replies) => queue.push(...replies),
    remainingReplies: () => queue.length,
    discardReplies: () => queue.splice(0).length,
    waitForRequest(index) {
      const existing = requests[index];
      if (existing) return Promise.resolve(existing);
      return new Promise((resolve) => waiters.set(index, [...(waiters.get(index) ?? []), resolve]));
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      );
    },
  };
}
