import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { bearer, startServer, TEST_TOKEN, type ServerHarness } from './server-harness.ts';
import { openClient, refusedUpgrade, type TestClient } from './server-ws-client.ts';

/** The REST API, the login link and the WebSocket upgrade, over a real server on 127.0.0.1. */

const ErrorBodySchema = z.object({ error: z.object({ code: z.string(), message: z.string() }) });
const IdeaBodySchema = z.object({
  idea: z.object({ id: z.string(), meta: z.object({ title: z.string() }) }),
});

let harness: ServerHarness;
const clients: TestClient[] = [];

beforeEach(async () => {
  harness = await startServer({ allowedOrigins: ['http://localhost:5173'] });
});
afterEach(async () => {
  for (const client of clients.splice(0)) client.socket.terminate();
  await harness.close();
  expect(harness.logs.join('\n')).not.toContain(TEST_TOKEN);
});

async function api(path: string, init: RequestInit = {}) {
  const headers = new Headers(init.headers);
  if (!headers.has('authorization') && !headers.has('cookie'))
    headers.set('authorization', `Bearer ${TEST_TOKEN}`);
  return fetch(`${harness.baseUrl}${path}`, { ...init, headers });
}

async function errorOf(response: Response) {
  return ErrorBodySchema.parse(await response.json()).error;
}

const json = (body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

describe('REST authentication', () => {
  it('refuses every /api route without the right token, before the service is called', async () => {
    for (const headers of [{}, bearer('wrong-token'), { authorization: `Basic ${TEST_TOKEN}` }]) {
      for (const path of [
        '/api/health',
        '/api/ideas',
        '/api/no-such-route',
        `/api/ideas?token=${TEST_TOKEN}`,
      ]) {
        const response = await fetch(`${harness.baseUrl}${path}`, { headers });
        expect(response.status).toBe(401);
        expect((await errorOf(response)).code).toBe('UNAUTHORIZED');
      }
    }
    expect(harness.service.calls).toEqual([]);
  });

  it('answers with the token, with security headers and no caching', async () => {
    const response = await api('/api/health');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true });
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('x-powered-by')).toBeNull();
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    // Frames of the previews' own names alone (issue 31).
    expect(response.headers.get('content-security-policy')).toContain('; frame-src http://*.localhost:*;');
  });

  it('refuses a request from a foreign page even with the token', async () => {
    const foreign = await api('/api/ideas', { headers: { ...bearer(), origin: 'http://evil.example' } });
    expect(foreign.status).toBe(403);
    expect((await errorOf(foreign)).code).toBe('FORBIDDEN_ORIGIN');
    const own = await api('/api/ideas', { headers: { ...bearer(), origin: harness.baseUrl } });
    expect(own.status).toBe(200);
    expect(harness.service.calls).toEqual(['listIdeas']);
  });
});

describe('ideas over REST', () => {
  it('creates, reads, updates, lists, reads events of and deletes an idea', async () => {
    const created = await api('/api/ideas', json({ title: '  A robot  ' }));
    expect(created.status).toBe(201);
    const { idea } = IdeaBodySchema.parse(await created.json());
    expect(idea.meta.title).toBe('A robot');
    const got = await api(`/api/ideas/${idea.id}`);
    expect(IdeaBodySchema.parse(await got.json()).idea.id).toBe(idea.id);
    const patched = await api(`/api/ideas/${idea.id}`, { ...json({ title: 'Renamed' }), method: 'PATCH' });
    expect(IdeaBodySchema.parse(await patched.json()).idea.meta.title).toBe('Renamed');
    const list = z
      .object({ ideas: z.array(z.object({ id: z.string() })) })
      .parse(await (await api('/api/ideas')).json());
    expect(list.ideas.map((item) => item.id)).toEqual([idea.id]);
    for (const text of ['one', 'two', 'three']) harness.service.emitText(idea.id, text);
    const events = await api(`/api/ideas/${idea.id}/events?sinceSeq=1&limit=1`);
    expect(z.object({ events: z.array(z.object({ seq: z.number() })) }).parse(await events.json())).toEqual({
      events: [expect.objectContaining({ seq: 2 })],
    });
    expect((await api(`/api/ideas/${idea.id}`, { method: 'DELETE' })).status).toBe(204);
    const gone = await api(`/api/ideas/${idea.id}`);
    expect(gone.status).toBe(404);
    expect((await errorOf(gone)).code).toBe('IDEA_NOT_FOUND');
  });

  it('refuses ids that are not idea ids with 400, and the service never sees them', async () => {
    const bad = ['..%2F..%2Fetc%2Fpasswd', 'idea-0123456789abcde%00', 'idea-0123456789ABCDEF', '%2E%2E%2Fx'];
    for (const id of bad) {
      for (const [path, method] of [
        [`/api/ideas/${id}`, 'GET'],
        [`/api/ideas/${id}`, 'DELETE'],
        [`/api/ideas/${id}/events`, 'GET'],
      ] as const) {
        const response = await api(path, { method });
        expect(response.status, `${method} ${path}`).toBe(400);
        expect((await errorOf(response)).code).toBe('INVALID_ARGUMENT');
      }
    }
    expect(harness.service.calls).toEqual([]);
  });

  it('parses every body and query: malformed, invalid, oversized or unknown → 400/413, service not called', async () => {
    const cases: [RequestInit, number, string][] = [
      [{ ...json({}), body: '{"title": ' }, 400, 'not valid JSON'],
      [json({ title: '' }), 400, 'title'],
      [json({ title: 'x', owner: 'root' }), 400, 'owner'],
      [json([1, 2]), 400, 'not valid'],
      [{ method: 'POST', body: 'title=x' }, 400, 'Content-Type: application/json'],
      [json({ title: 'x', description: 'd'.repeat(300 * 1024) }), 413, '256 KiB'],
    ];
    for (const [init, status, words] of cases) {
      const response = await api('/api/ideas', init);
      expect(response.status).toBe(status);
      const error = await errorOf(response);
      expect(error.code).toBe('INVALID_ARGUMENT');
      expect(error.message).toContain(words);
    }
    const { id } = harness.service.seedIdea();
    for (const query of ['sinceSeq=-1', 'limit=0', 'limit=abc', 'sinceSeq=1&sinceSeq=2', 'since=1']) {
      expect((await api(`/api/ideas/${id}/events?${query}`)).status, query).toBe(400);
    }
    const emptyPatch = await api(`/api/ideas/${id}`, { ...json({}), method: 'PATCH' });
    expect((await errorOf(emptyPatch)).message).toContain('nothing to update');
    expect(harness.service.calls).toEqual([]);
  });

  it('maps service errors to statuses and hides unexpected ones behind a generic sentence', async () => {
    const { id } = harness.service.seedIdea();
    await harness.service.startRun(id, 'chat', 'hello');
    const busy = await api(`/api/ideas/${id}`, { method: 'DELETE' });
    expect(busy.status).toBe(409);
    expect((await errorOf(busy)).code).toBe('RUN_IN_PROGRESS');
    const noHost = await api('/api/ideas', json({ title: 'x', host: 'nowhere' }));
    expect(noHost.status).toBe(404);
    expect((await errorOf(noHost)).code).toBe('HOST_NOT_FOUND');

    harness.services.hosts.hosts = () => Promise.reject(new Error('secret detail at /srv/internal.ts:12'));
    const broken = await api('/api/hosts');
    expect(broken.status).toBe(500);
    const error = await errorOf(broken);
    expect(error.code).toBe('INTERNAL');
    expect(error.message).not.toContain('secret');
    expect(harness.logs.join('\n')).toContain('secret detail at /srv/internal.ts:12');
    expect(harness.logs.join('\n')).toContain('"stack"');
  });

  it('answers an unknown API route with 404 in the API’s error shape', async () => {
    const response = await api('/api/ideaz');
    expect(response.status).toBe(404);
    expect((await errorOf(response)).message).toContain('GET /api/ideaz');
  });
});

describe('logging in', () => {
  const logIn = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${harness.baseUrl}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: harness.baseUrl, ...headers },
      body: JSON.stringify(body),
    });

  it('refuses a wrong token with 401, a body that is not `{ token }` with 400, and sets no cookie', async () => {
    for (const body of [{ token: 'wrong' }, { token: `${TEST_TOKEN}x` }]) {
      const response = await logIn(body);
      expect(response.status).toBe(401);
      expect((await errorOf(response)).code).toBe('UNAUTHORIZED');
      expect(response.headers.getSetCookie()).toEqual([]);
    }
    // Checked against the contract's schema before the token is looked at: the answer says nothing of the token.
    for (const body of [{}, { token: TEST_TOKEN, x: 1 }, { token: 'x'.repeat(1025) }]) {
      const response = await logIn(body);
      expect(response.status).toBe(400);
      expect((await errorOf(response)).code).toBe('INVALID_ARGUMENT');
      expect(response.headers.getSetCookie()).toEqual([]);
    }
  });

  it('refuses a login posted from a foreign page, even with the right token', async () => {
    const response = await logIn({ token: TEST_TOKEN }, { origin: 'http://127.0.0.1:1' });
    expect(response.status).toBe(403);
    expect(response.headers.getSetCookie()).toEqual([]);
  });

  it('refuses the old link with the token in its query, whatever the token, and sets no cookie', async () => {
    for (const query of ['?token=wrong', `?token=${encodeURIComponent(TEST_TOKEN)}`]) {
      const response = await fetch(`${harness.baseUrl}/login${query}`, { redirect: 'manual' });
      expect(response.status).toBe(401);
      expect(response.headers.get('content-type')).toContain('text/plain');
      expect(response.headers.getSetCookie()).toEqual([]);
    }
  });

  it('starts a session whose cookie and key together open the API and the WebSocket', async () => {
    const login = await logIn({ token: TEST_TOKEN });
    expect(login.status).toBe(200);
    expect(login.headers.get('cache-control')).toBe('no-store');
    const { key } = z.object({ key: z.string() }).parse(await login.json());
    const [setCookie] = login.headers.getSetCookie();
    expect(setCookie).toMatch(/^catalyst_session=[\w-]{43}; HttpOnly; SameSite=Strict; Path=\/$/);
    expect(setCookie).not.toContain(TEST_TOKEN);
    const cookie = (setCookie ?? '').split(';')[0] ?? '';
    const origin = harness.baseUrl;

    const response = await api('/api/ideas', { headers: { cookie, origin, 'x-catalyst-key': key } });
    expect(response.status).toBe(200);
    const client = await openClient(harness.wsUrl, {
      headers: { cookie },
      origin,
      protocols: [`catalyst-key.${key}`],
    });
    clients.push(client);
    expect(client.socket.protocol).toBe(`catalyst-key.${key}`);
    const { id } = harness.service.seedIdea();
    client.send({ type: 'subscribe', ideaId: id });
    expect(await client.next()).toMatchObject({ type: 'subscribed', ideaId: id });
  });

  it('refuses either half of a session alone: the cookie (what any other port receives) or the key', async () => {
    const login = await logIn({ token: TEST_TOKEN });
    const { key } = z.object({ key: z.string() }).parse(await login.json());
    const cookie = (login.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
    const origin = harness.baseUrl;
    for (const headers of [{ cookie }, { 'x-catalyst-key': key }]) {
      const response = await fetch(`${harness.baseUrl}/api/ideas`, { headers: { ...headers, origin } });
      expect(response.status).toBe(401);
    }
    expect((await refusedUpgrade(harness.wsUrl, { headers: { cookie }, origin })).status).toBe(401);
    const keyOnly = await refusedUpgrade(harness.wsUrl, { origin, protocols: [`catalyst-key.${key}`] });
    expect(keyOnly.status).toBe(401);
    expect(harness.service.calls).toEqual([]);
  });
});

describe('the WebSocket upgrade', () => {
  it('refuses a missing, wrong or query-string token with 401, before any WebSocket exists', async () => {
    for (const [url, headers] of [
      [harness.wsUrl, {}],
      [harness.wsUrl, bearer('wrong-token')],
      [`${harness.wsUrl}?token=${TEST_TOKEN}`, {}],
      [harness.wsUrl, { cookie: `catalyst_token=${TEST_TOKEN}` }],
    ] as const) {
      const refusal = await refusedUpgrade(url, { headers });
      expect(refusal.status).toBe(401);
      expect(refusal.body).toContain('access token');
    }
    expect(harness.hub.clientCount).toBe(0);
  });

  it('refuses a foreign Origin with 403 even with the token; allows its own and configured ones', async () => {
    for (const origin of ['http://evil.example', 'null', 'http://127.0.0.1:1']) {
      expect((await refusedUpgrade(harness.wsUrl, { headers: bearer(), origin })).status).toBe(403);
    }
    for (const origin of [harness.baseUrl, 'http://localhost:5173', undefined]) {
      const client = await openClient(harness.wsUrl, { headers: bearer(), ...(origin ? { origin } : {}) });
      clients.push(client);
    }
    expect(harness.hub.clientCount).toBe(3);
  });

  it('answers an upgrade to another path with 404', async () => {
    expect(
      (await refusedUpgrade(`${harness.baseUrl.replace('http', 'ws')}/other`, { headers: bearer() })).status,
    ).toBe(404);
  });
});

describe('the built frontend', () => {
  let staticDir: string;
  beforeEach(async () => {
    staticDir = await mkdtemp(join(tmpdir(), 'catalyst-static-'));
    await writeFile(join(staticDir, 'index.html'), '<!doctype html><title>Catalyst</title>');
    await writeFile(join(staticDir, 'app.js'), 'console.log(1)');
    await writeFile(join(staticDir, 'sw.js'), 'self.addEventListener("fetch", () => undefined);');
    await writeFile(join(staticDir, 'manifest.webmanifest'), '{"name":"Catalyst"}');
    await harness.close();
    harness = await startServer({ staticDir });
  });
  afterEach(async () => {
    await rm(staticDir, { recursive: true, force: true });
  });

  it('serves the app without the token, client routes get index.html, the API still needs it', async () => {
    const shell = await fetch(`${harness.baseUrl}/`);
    expect(shell.status).toBe(200);
    expect(await shell.text()).toContain('<title>Catalyst</title>');
    expect(shell.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(await (await fetch(`${harness.baseUrl}/app.js`)).text()).toBe('console.log(1)');
    expect(await (await fetch(`${harness.baseUrl}/ideas/idea-0123456789abcdef`)).text()).toContain(
      'Catalyst',
    );
    expect((await fetch(`${harness.baseUrl}/api/ideas`)).status).toBe(401);
  });

  it('serves the service worker to be checked on every load and the manifest as one; the CSP allows both', async () => {
    const worker = await fetch(`${harness.baseUrl}/sw.js`);
    expect(worker.status).toBe(200);
    expect(worker.headers.get('cache-control')).toBe('no-cache');
    expect(worker.headers.get('content-type')).toMatch(/^(text|application)\/javascript\b/);
    expect((await fetch(`${harness.baseUrl}/app.js`)).headers.get('cache-control')).not.toBe('no-cache');
    const manifest = await fetch(`${harness.baseUrl}/manifest.webmanifest`);
    expect(manifest.headers.get('content-type')).toBe('application/manifest+json; charset=utf-8');
    expect(await manifest.json()).toEqual({ name: 'Catalyst' });
    const policy = manifest.headers.get('content-security-policy')?.split(/;\s*/) ?? [];
    expect(policy).toContain("manifest-src 'self'");
    expect(policy).toContain("worker-src 'self'");
    expect(policy).toContain("default-src 'self'");
  });

  it('answers the login link with the app, and sends the old `?token=` link to its login screen', async () => {
    const link = await fetch(`${harness.baseUrl}/login`);
    expect(link.status).toBe(200);
    expect(await link.text()).toContain('<title>Catalyst</title>');
    expect(link.headers.get('cache-control')).toBe('no-store');
    for (const query of ['?token=wrong', `?token=${encodeURIComponent(TEST_TOKEN)}`]) {
      const response = await fetch(`${harness.baseUrl}/login${query}`, { redirect: 'manual' });
      expect(response.status).toBe(303);
      expect(response.headers.get('location')).toBe('/?login=refused');
      expect(response.headers.getSetCookie()).toEqual([]);
    }
  });
});
