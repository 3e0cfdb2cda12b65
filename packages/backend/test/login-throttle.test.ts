import { request } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startServer, TEST_TOKEN, type ServerHarness } from './server-harness.ts';

/**
 * Guessing the token or a pairing code (issue 39) over the real HTTP server: after a few wrong tries an address is
 * answered 429 with Retry-After, the throttling is logged once, not per try, and the right token still signs in from
 * another address (127.0.0.2: Linux answers the whole 127/8 on loopback, so the client binds there).
 */

const TRIES = 40;
const FREE_FAILURES = 5;

let harness: ServerHarness;

beforeEach(async () => {
  harness = await startServer();
});

afterEach(async () => {
  await harness.close();
});

interface Answer {
  status: number;
  retryAfter: string | undefined;
  body: unknown;
}

/** A POST of `body` to `path`, from `localAddress` (the client's end of the connection). */
function post(path: string, body: unknown, localAddress = '127.0.0.1'): Promise<Answer> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const outgoing = request(
      `${harness.baseUrl}${path}`,
      {
        method: 'POST',
        localAddress,
        headers: { 'content-type': 'application/json', origin: harness.baseUrl },
        agent: false,
      },
      (incoming) => {
        let received = '';
        incoming.setEncoding('utf8');
        incoming.on('data', (chunk: string) => (received += chunk));
        incoming.on('end', () => {
          const retryAfter = incoming.headers['retry-after'];
          resolve({ status: incoming.statusCode ?? 0, retryAfter, body: JSON.parse(received) as unknown });
        });
      },
    );
    outgoing.on('error', reject);
    outgoing.end(text);
  });
}

async function tryWrong(path: string, field: 'token' | 'code'): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (let attempt = 0; attempt < TRIES; attempt++) {
    answers.push(await post(path, { [field]: `wrong-${String(attempt)}-${'x'.repeat(32)}` }));
  }
  return answers;
}

const ErrorSchema = z.object({ error: z.object({ code: z.string(), message: z.string() }) });

function logLinesWith(message: string): string[] {
  return harness.logs.filter((line) => line.includes(message));
}

describe('guessing the token', () => {
  it(`answers 429 with Retry-After after ${String(FREE_FAILURES)} wrong tokens, logged once`, async () => {
    const answers = await tryWrong('/login', 'token');
    expect(answers.slice(0, FREE_FAILURES).map((answer) => answer.status)).toEqual(
      Array.from({ length: FREE_FAILURES }, () => 401),
    );
    const throttled = answers.slice(FREE_FAILURES);
    expect(throttled.map((answer) => answer.status)).toEqual(
      Array.from({ length: TRIES - FREE_FAILURES }, () => 429),
    );
    for (const answer of throttled) {
      expect(Number(answer.retryAfter)).toBeGreaterThanOrEqual(1);
      expect(ErrorSchema.parse(answer.body).error.message).toMatch(/too many wrong tries/i);
    }
    expect(logLinesWith('login refused')).toHaveLength(FREE_FAILURES);
    expect(logLinesWith('throttled')).toHaveLength(1);
  });

  it('refuses even the right token from the throttled address, and lets it in from another one', async () => {
    await tryWrong('/login', 'token');
    expect((await post('/login', { token: TEST_TOKEN })).status).toBe(429);
    const elsewhere = await post('/login', { token: TEST_TOKEN }, '127.0.0.2');
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.body).toEqual({ key: expect.any(String) as unknown });
  });

  it('judges no more than the free tries of a burst sent at once', async () => {
    const answers = await Promise.all(
      Array.from({ length: TRIES }, (_, attempt) => post('/login', { token: `burst-${String(attempt)}` })),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 401)).toHaveLength(FREE_FAILURES);
    expect(statuses.filter((status) => status === 429)).toHaveLength(TRIES - FREE_FAILURES);
  });
});

describe('guessing a pairing code', () => {
  it(`answers 429 after ${String(FREE_FAILURES)} wrong codes, logged once`, async () => {
    const answers = await tryWrong('/pair', 'code');
    expect(answers.map((answer) => answer.status)).toEqual([
      ...Array.from({ length: FREE_FAILURES }, () => 401),
      ...Array.from({ length: TRIES - FREE_FAILURES }, () => 429),
    ]);
    expect(logLinesWith('pairing code refused')).toHaveLength(FREE_FAILURES);
    expect(logLinesWith('throttled')).toHaveLength(1);
    // Token and codes are guessed alike: one count per address, so one cannot be tried while the other waits.
    expect((await post('/login', { token: 'wrong' })).status).toBe(429);
  });
});
