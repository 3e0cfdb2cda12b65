import type { AddressInfo } from 'node:net';
import type { ApiRoute } from '@catalyst/protocol';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { bindApi, type ApiHandlers } from './api-binding.ts';
import { createErrorHandler } from './http-errors.ts';
import { pino } from 'pino';

const contract = {
  getThing: {
    method: 'GET',
    path: '/api/things/:id',
    summary: 'A thing.',
    params: {
      id: {
        schema: z.string().regex(/^t-\d+$/),
        invalid: (text: string) => `${JSON.stringify(text)} is not a thing id.`,
        description: 't-<digits>',
      },
    },
    query: z.strictObject({ n: z.string().regex(/^\d+$/).transform(Number).default(1) }),
    status: 200,
    response: z.object({ id: z.string(), n: z.number() }),
    errors: ['INVALID_ARGUMENT'],
  },
  makeThing: {
    method: 'POST',
    path: '/api/things',
    summary: 'Makes a thing.',
    body: z.strictObject({ name: z.string().min(1) }),
    status: 201,
    response: z.object({ made: z.string() }),
    errors: ['INVALID_ARGUMENT'],
  },
  dropThing: {
    method: 'DELETE',
    path: '/api/things/:id',
    summary: 'Drops a thing.',
    params: { id: { schema: z.string(), invalid: () => 'no', description: 'any' } },
    status: 204,
    errors: [],
  },
} as const satisfies Record<string, ApiRoute>;

const handlers: ApiHandlers<typeof contract> = {
  getThing: ({ params, query }) => ({ id: params.id, n: query.n }),
  makeThing: ({ body }) => Promise.resolve({ made: body.name }),
  dropThing: () => undefined,
};

let base: string;
let close: () => void;

beforeAll(async () => {
  const app = express();
  const router = express.Router();
  bindApi(router, contract, handlers, '/api');
  app.use('/api', express.json(), router);
  app.use(createErrorHandler(pino({ level: 'silent' })));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
  close = () => server.close();
});
afterAll(() => {
  close();
});

describe('bindApi', () => {
  it('parses the path and the query, and answers with the route’s status', async () => {
    const response = await fetch(`${base}/api/things/t-7?n=3`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ id: 't-7', n: 3 });
    expect(await (await fetch(`${base}/api/things/t-7`)).json()).toEqual({ id: 't-7', n: 1 });
  });

  it('refuses a bad path value with the route’s sentence, a bad query or body with the problem', async () => {
    const badId = await fetch(`${base}/api/things/x-1`);
    expect(badId.status).toBe(400);
    expect(await badId.json()).toEqual({
      error: { code: 'INVALID_ARGUMENT', message: '"x-1" is not a thing id.' },
    });
    const badQuery = await fetch(`${base}/api/things/t-1?n=many`);
    expect(await badQuery.json()).toMatchObject({ error: { message: /^The query string is not valid: / } });
    const badBody = await fetch(`${base}/api/things`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: '' }),
    });
    expect(badBody.status).toBe(400);
    expect(await badBody.json()).toMatchObject({ error: { message: /^The request body is not valid: / } });
  });

  it('answers 201 with the body, and 204 with none', async () => {
    const made = await fetch(`${base}/api/things`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'a' }),
    });
    expect(made.status).toBe(201);
    expect(await made.json()).toEqual({ made: 'a' });
    const dropped = await fetch(`${base}/api/things/t-1`, { method: 'DELETE' });
    expect(dropped.status).toBe(204);
    expect(await dropped.text()).toBe('');
  });

  it('refuses to bind a route that has no handler', () => {
    const router = express.Router();
    const partial = { getThing: handlers.getThing } as unknown as ApiHandlers<typeof contract>;
    expect(() => {
      bindApi(router, contract, partial, '/api');
    }).toThrow(/makeThing has no handler/);
  });
  it('does not type-check without a handler per route, or with a handler answering another shape', () => {
    // `tsc -b` type-checks this file: each directive fails the build if the line below it type-checks.
    // @ts-expect-error a route without its handler
    const missing: ApiHandlers<typeof contract> = {
      getThing: handlers.getThing,
      makeThing: handlers.makeThing,
    };
    const wrongShape: ApiHandlers<typeof contract> = {
      ...handlers,
      // @ts-expect-error a handler answering another shape
      makeThing: () => ({ made: 5 }),
    };
    const silent: ApiHandlers<typeof contract> = {
      ...handlers,
      // @ts-expect-error a route with an answer whose handler answers nothing
      getThing: () => undefined,
    };
    expect(Object.keys(silent)).toHaveLength(3);
    expect(Object.keys(missing)).toEqual(['getThing', 'makeThing']);
    expect(Object.keys(wrongShape)).toHaveLength(3);
  });
});
