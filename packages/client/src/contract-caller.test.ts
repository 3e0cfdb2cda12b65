import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContractCaller, type CallFailure } from './contract-caller.ts';

// The caller against a real HTTP server on loopback: each path answers as a server (or a broken one) might.

class Failed extends Error {
  constructor(readonly failure: CallFailure) {
    super(failure.kind);
  }
}

const IDEA_ID = 'idea-0123456789abcdef';
const IDEA = { id: IDEA_ID, host: 'local', available: true, running: false };

let server: Server;
let url: string;
const seen: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[] = [];

function answer(response: ServerResponse, status: number, body: string): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(body);
}

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      seen.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body });
      const id = decodeURIComponent(/^\/api\/ideas\/([^/?]+)/.exec(request.url ?? '')?.[1] ?? '');
      if (id === 'refused')
        answer(response, 404, '{"error":{"code":"IDEA_NOT_FOUND","message":"No such idea."}}');
      else if (id === 'newer')
        answer(response, 409, '{"error":{"code":"SOME_NEW_CODE","message":"Said anew."}}');
      else if (id === 'proxy') answer(response, 502, '<html>Bad gateway</html>');
      else if (id === 'wrong') answer(response, 200, '{"idea":{"id":3}}');
      else if (id === 'broken') {
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
        response.write('{"idea":');
        setTimeout(() => response.destroy(), 20);
      } else answer(response, 200, JSON.stringify({ idea: { ...IDEA, id, addedLater: true } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

function callerAt(base: string, onResponse?: (response: Response) => void) {
  return createContractCaller({
    url: base,
    headers: () => ({ authorization: 'Bearer t0ken' }),
    ...(onResponse === undefined ? {} : { onResponse }),
    toError: (failure) => new Failed(failure),
  });
}

async function failureOf(promise: Promise<unknown>): Promise<CallFailure> {
  const error: unknown = await promise.then(
    () => undefined,
    (rejected: unknown) => rejected,
  );
  if (!(error instanceof Failed)) throw new Error(`expected a Failed, got ${String(error)}`);
  return error.failure;
}

describe('createContractCaller: a route of the contract, called and read', () => {
  it('builds the path, sends the headers and the body as JSON, and reads the answer with its schema', async () => {
    const statuses: number[] = [];
    const caller = callerAt(url, (response) => statuses.push(response.status));
    const { idea } = await caller.call('updateIdea', { params: { id: IDEA_ID }, body: { title: 'New' } });
    // A field a newer server added is let through: the answer is still understood.
    expect(idea).toEqual(IDEA);
    expect(seen.at(-1)).toMatchObject({
      method: 'PATCH',
      url: `/api/ideas/${IDEA_ID}`,
      body: '{"title":"New"}',
    });
    expect(seen.at(-1)?.headers).toMatchObject({
      authorization: 'Bearer t0ken',
      'content-type': 'application/json',
    });
    expect(statuses).toEqual([200]);
  });

  it('says what the server refused, with its code and sentence; a code newer than the client has none', async () => {
    const caller = callerAt(url);
    expect(await failureOf(caller.call('getIdea', { params: { id: 'refused' } }))).toEqual({
      kind: 'refused',
      method: 'GET',
      path: '/api/ideas/refused',
      status: 404,
      code: 'IDEA_NOT_FOUND',
      message: 'No such idea.',
    });
    expect(await failureOf(caller.call('getIdea', { params: { id: 'newer' } }))).toMatchObject({
      kind: 'refused',
      status: 409,
      code: undefined,
      message: 'Said anew.',
    });
  });

  it('an answer it cannot read is unexpected, with what came; no answer at all is unreachable', async () => {
    const caller = callerAt(url);
    expect(await failureOf(caller.call('getIdea', { params: { id: 'proxy' } }))).toMatchObject({
      kind: 'unexpected',
      status: 502,
      detail: 'HTTP 502 <html>Bad gateway</html>',
    });
    const wrong = await failureOf(caller.call('getIdea', { params: { id: 'wrong' } }));
    expect(wrong).toMatchObject({ kind: 'unexpected', status: 200 });
    expect(wrong.kind === 'unexpected' && wrong.detail).toContain('idea');
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    expect(await failureOf(callerAt(`http://127.0.0.1:${String(port)}`).call('listIdeas', {}))).toMatchObject(
      {
        kind: 'unreachable',
        reason: 'ECONNREFUSED',
      },
    );
  });

  it('a body cut off is broken; an aborted call rejects with the abort, not a failure', async () => {
    const caller = callerAt(url);
    expect(await failureOf(caller.call('getIdea', { params: { id: 'broken' } }))).toMatchObject({
      kind: 'broken',
      status: 200,
    });
    const aborted = new AbortController();
    aborted.abort(new Error('stopped here'));
    await expect(caller.call('getIdea', { params: { id: IDEA_ID } }, aborted.signal)).rejects.toThrow(
      'stopped here',
    );
  });
});
