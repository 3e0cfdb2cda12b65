import { request, type IncomingHttpHeaders } from 'node:http';
import { SESSION_KEY_HEADER } from '@catalyst/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { z } from 'zod';
import { logInBrowser } from './browser-login.ts';
import { bearer, startServer, TEST_TOKEN, type ServerHarness } from './server-harness.ts';

/**
 * Guessing the token through `Authorization: Bearer` (issue 39), on /api and on the WebSocket upgrade, over the
 * real HTTP server: a wrong Bearer counts against the same per-address limiter as a wrong login, so after a few the
 * address is answered 429 with Retry-After, even with the right token, which still works from another address
 * (127.0.0.2: Linux answers the whole 127/8 on loopback, so the client binds there). A request with no credential,
 * or with a session cookie the server does not know, is not a guess and is never counted.
 */

const TRIES = 40;
const FREE_FAILURES = 5;
const OTHER_ADDRESS = '127.0.0.2';

let harness: ServerHarness;

beforeEach(async () => {
  harness = await startServer();
});

afterEach(async () => {
  await harness.close();
  expect(harness.logs.join('\n')).not.toContain(TEST_TOKEN);
});

interface Answer {
  status: number;
  retryAfter: string | undefined;
  body: string;
}

const ErrorSchema = z.object({ error: z.object({ code: z.string(), message: z.string() }) });

function answerOf(status: number | undefined, headers: IncomingHttpHeaders, body: string): Answer {
  const retryAfter = headers['retry-after'];
  return { status: status ?? 0, retryAfter, body };
}

/** A GET of /api/health with `headers`, from `localAddress` (the client's end of the connection). */
function getHealth(headers: Record<string, string>, localAddress = '127.0.0.1'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      `${harness.baseUrl}/api/health`,
      { localAddress, headers, agent: false },
      (incoming) => {
        let received = '';
        incoming.setEncoding('utf8');
        incoming.on('data', (chunk: string) => (received += chunk));
        incoming.on('end', () => {
          resolve(answerOf(incoming.statusCode, incoming.headers, received));
        });
      },
    );
    outgoing.on('error', reject);
    outgoing.end();
  });
}

/** A WebSocket upgrade with `headers` from `localAddress`: 101 once open (then closed), else the refusal. */
function upgrade(headers: Record<string, string>, localAddress = '127.0.0.1'): Promise<Answer> {
  const socket = new WebSocket(harness.wsUrl, { headers, localAddress });
  return new Promise((resolve, reject) => {
    socket.once('open', () => {
      socket.close();
      resolve({ status: 101, retryAfter: undefined, body: '' });
    });
    // ws reports the aborted handshake as an error once the refusal has been read; that is expected here.
    socket.on('error', () => undefined);
    socket.once('unexpected-response', (outgoing, incoming) => {
      let received = '';
      incoming.setEncoding('utf8');
      incoming.on('data', (chunk: string) => (received += chunk));
      incoming.once('end', () => {
        outgoing.destroy();
        resolve(answerOf(incoming.statusCode, incoming.headers, received));
      });
      incoming.once('error', reject);
    });
  });
}

async function repeat(times: number, send: (attempt: number) => Promise<Answer>): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (let attempt = 0; attempt < times; attempt++) answers.push(await send(attempt));
  return answers;
}

const wrongBearer = (attempt: number) => bearer(`wrong-${String(attempt)}-${'x'.repeat(32)}`);

function expectThrottledAfterFreeFailures(answers: Answer[]): void {
  expect(answers.map((answer) => answer.status)).toEqual([
    ...Array.from({ length: FREE_FAILURES }, () => 401),
    ...Array.from({ length: answers.length - FREE_FAILURES }, () => 429),
  ]);
  for (const answer of answers.slice(FREE_FAILURES)) {
    expect(Number(answer.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(answer.body).toMatch(/too many wrong tries/i);
  }
}

const throttledLines = () => harness.logs.filter((line) => line.includes('throttled'));

describe('a wrong Bearer token on /api', () => {
  it(`answers 429 with Retry-After and UNAUTHORIZED after ${String(FREE_FAILURES)} wrong tokens, logged once`, async () => {
    const answers = await repeat(TRIES, (attempt) => getHealth(wrongBearer(attempt)));
    expectThrottledAfterFreeFailures(answers);
    for (const answer of answers)
      expect(ErrorSchema.parse(JSON.parse(answer.body)).error.code).toBe('UNAUTHORIZED');
    expect(throttledLines()).toHaveLength(1);
  });

  it('refuses even the right token from the throttled address, and lets it in from another one', async () => {
    await repeat(TRIES, (attempt) => getHealth(wrongBearer(attempt)));
    expect((await getHealth(bearer())).status).toBe(429);
    const elsewhere = await getHealth(bearer(), OTHER_ADDRESS);
    expect(elsewhere.status).toBe(200);
    expect(JSON.parse(elsewhere.body)).toEqual({ ok: true });
  });

  it('counts with wrong logins, per address: guesses on /api throttle the login too', async () => {
    await repeat(FREE_FAILURES, (attempt) => getHealth(wrongBearer(attempt)));
    const login = await fetch(`${harness.baseUrl}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: TEST_TOKEN }),
    });
    expect(login.status).toBe(429);
  });

  it('never counts a request without a credential, a proxy’s Basic header, or an unknown session', async () => {
    const unknownSession = {
      cookie: `catalyst_session=${'a'.repeat(43)}`,
      [SESSION_KEY_HEADER]: 'b'.repeat(43),
    };
    const kinds = [{}, { authorization: `Basic ${TEST_TOKEN}` }, unknownSession];
    for (const headers of kinds) {
      const answers = await repeat(TRIES / 2, () => getHealth(headers));
      expect(answers.map((answer) => answer.status)).toEqual(Array.from({ length: TRIES / 2 }, () => 401));
    }
    expect((await getHealth(bearer())).status).toBe(200);
    expect(throttledLines()).toHaveLength(0);
  });

  it('lets a signed-in browser on a throttled address go on with its session', async () => {
    // Logged in before the guessing began; its session is not a guess, and a person behind the same proxy as a
    // guesser must not be locked out.
    const browser = await logInBrowser(harness.baseUrl, TEST_TOKEN);
    await repeat(TRIES, (attempt) => getHealth(wrongBearer(attempt)));
    expect((await getHealth(bearer())).status).toBe(429);
    const page = { cookie: browser.cookie, [SESSION_KEY_HEADER]: browser.key, origin: harness.baseUrl };
    expect((await getHealth(page)).status).toBe(200);
  });
});

describe('a wrong Bearer token on the WebSocket upgrade', () => {
  it('is counted, and the upgrade is refused 429 with Retry-After while the address waits', async () => {
    const answers = await repeat(TRIES, (attempt) => upgrade(wrongBearer(attempt)));
    expectThrottledAfterFreeFailures(answers);
    expect((await upgrade(bearer())).status).toBe(429);
    expect((await upgrade(bearer(), OTHER_ADDRESS)).status).toBe(101);
    expect(throttledLines()).toHaveLength(1);
  });

  it('shares the count with /api', async () => {
    await repeat(FREE_FAILURES, (attempt) => getHealth(wrongBearer(attempt)));
    expect((await upgrade(bearer())).status).toBe(429);
    expect((await upgrade({})).status).toBe(401);
  });
});
