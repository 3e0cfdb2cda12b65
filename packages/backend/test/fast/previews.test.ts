import { copyFile, writeFile } from 'node:fs/promises';
import { connect as connectTcp } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import {
  ApiErrorBodySchema,
  ListeningPortsResponseSchema,
  PreviewLinkResponseSchema,
  PreviewLogResponseSchema,
  PreviewViewSchema,
  type RelayEvent,
} from '@catalyst/protocol';
import { freePort, text, toolUse, waitUntil } from '@catalyst/testkit';
import { loopbackLookup, previewFetch } from '../preview-client.ts';
import type { ServiceUnderTest } from '../service-harness.ts';
import { useFastService } from './fast-harness.ts';
import { APP, enter, post, previewOf, untilState } from '../preview-test-kit.ts';

// Previews (issue 14), on the in-process host (the preview a real process of this machine; a neighbour on the VM and a
// build's own server over sshd in ../previews.test.ts): a small app (fixtures/preview-server.cjs) started as an idea's
// preview command on the VM, reached through Catalyst's preview server (an SSH direct-tcpip channel per connection),
// behind the preview's own one-time link and cookie.

const fixture = useFastService();

/**
 * An idea whose preview is the fixture app on a free port, started and running. A port another process of this busy
 * machine took between freePort and the app's listen is another one's turn.
 */
async function runningPreview(service: ServiceUnderTest, title: string) {
  const idea = await service.createIdea(title);
  await copyFile(APP, join(service.projectDir(idea.id), 'server.cjs'));
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const patched = await post(service, `/api/ideas/${idea.id}`, {
      previewCommand: 'node server.cjs',
      previewPort: port,
    });
    expect(patched.status).toBe(200);
    const started = await post(service, `/api/ideas/${idea.id}/preview/start`);
    expect(started.status).toBe(200);
    expect(PreviewViewSchema.parse(await started.json()).state).toBe('starting');
    try {
      const view = await untilState(service, idea.id, 'running');
      return { idea, port, view };
    } catch (error) {
      if (attempt === 3 || !String(error).includes('EADDRINUSE')) throw error;
    }
  }
}

describe('previews', () => {
  it('serves the app through its own port and cookie: GET, 5 MB, 50 at once, a WebSocket echo', async () => {
    const { service } = fixture;
    const { idea, port, view } = await runningPreview(service, 'Previewed');
    expect(view).toMatchObject({ command: 'node server.cjs', port });
    expect(view.lastOutput).toContain(`preview app listening on ${port}`);
    const { url, origin } = view;
    if (url === undefined || origin === undefined) throw new Error('a running preview has a link');
    // A site of its own (issue 25, finding 7), on a port of its own.
    expect(origin).toMatch(/^http:\/\/p-[0-9a-f]{20}\.localhost:\d+$/);
    expect(new URL(origin).port).not.toBe(String(service.catalyst.port));

    // Without the cookie: refused. A used link: refused.
    expect((await previewFetch(`${origin}/`)).status).toBe(401);
    const cookie = await enter(url);
    expect((await previewFetch(url)).status).toBe(403);

    const home = await previewFetch(`${origin}/`, { headers: { cookie } });
    expect(home.status).toBe(200);
    expect(await home.text()).toContain('Hello from the preview');
    // The app's own cookie passes; one that would replace Catalyst's login does not.
    expect(home.headers.getSetCookie()).toEqual(['app_cookie=1; Path=/']);

    const big = await previewFetch(`${origin}/big`, { headers: { cookie } });
    expect(Buffer.from(await big.arrayBuffer())).toHaveLength(5 * 1024 * 1024);
    const upload = Buffer.alloc(5 * 1024 * 1024, 7);
    const echoed = await previewFetch(`${origin}/echo`, {
      method: 'POST',
      headers: { cookie },
      body: upload,
    });
    expect(Buffer.from(await echoed.arrayBuffer()).equals(upload)).toBe(true);

    const paths = await Promise.all(
      Array.from({ length: 50 }, async (_, index) => {
        const response = await previewFetch(`${origin}/page-${index}`, { headers: { cookie } });
        return /<p id="path">([^<]*)<\/p>/.exec(await response.text())?.[1];
      }),
    );
    expect(paths).toEqual(Array.from({ length: 50 }, (_, index) => `/page-${index}`));
    // The app has closed its idle kept-alive connections by now (after 300 ms): a channel it closed is not reused.
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(
      (await previewFetch(`${origin}/again`, { headers: { cookie }, signal: AbortSignal.timeout(5_000) }))
        .status,
    ).toBe(200);

    const socket = new WebSocket(`${origin.replace('http:', 'ws:')}/ws`, {
      headers: { cookie },
      lookup: loopbackLookup,
    });
    const handshake = new Promise<string[] | undefined>((resolve) =>
      socket.once('upgrade', (response) => {
        resolve(response.headers['set-cookie']);
      }),
    );
    const echo = await new Promise<string>((resolve, reject) => {
      socket.once('open', () => {
        socket.send('hot reload');
      });
      socket.once('message', (data: Buffer) => {
        resolve(data.toString());
      });
      socket.once('error', reject);
    });
    expect(echo).toBe('hot reload');
    expect(await handshake).toEqual(['ws_cookie=1']);
    socket.close();
    const refused = new WebSocket(`${origin.replace('http:', 'ws:')}/ws`, { lookup: loopbackLookup });
    const status = await new Promise<number>((resolve) =>
      refused.once('unexpected-response', (_request, response) => {
        resolve(response.statusCode ?? 0);
      }),
    );
    expect(status).toBe(401);

    const log = PreviewLogResponseSchema.parse(
      await (await service.api(`/api/ideas/${idea.id}/preview/log`)).json(),
    );
    expect(log.text).toContain(`preview app listening on ${port}`);
  });

  it('keeps Catalyst out of the preview: no /api, no cookie or token reaches the app, no CONNECT', async () => {
    const { service } = fixture;
    const { idea, view } = await runningPreview(service, 'Walled off');
    const { url, origin } = view;
    if (url === undefined || origin === undefined) throw new Error('a running preview has a link');
    const cookie = await enter(url);

    // /api on the preview's port is the app's, never Catalyst's.
    const api = await previewFetch(`${origin}/api/ideas`, {
      headers: { cookie, authorization: `Bearer ${service.catalyst.token}` },
    });
    expect(await api.text()).toContain('<p id="path">/api/ideas</p>');

    const seen = await previewFetch(`${origin}/headers`, {
      headers: {
        cookie: `${cookie}; catalyst_session=abc; theirs=1`,
        'x-catalyst-key': 'key',
        authorization: `Bearer ${service.catalyst.token}`,
      },
    });
    const headers = (await seen.json()) as Record<string, string>;
    expect(headers.cookie).toBe('theirs=1');
    expect(headers).not.toHaveProperty('x-catalyst-key');
    expect(headers).not.toHaveProperty('authorization');
    expect(headers.host).toMatch(/^localhost:\d+$/);
    expect(JSON.stringify(headers)).not.toContain(service.catalyst.token);

    // A page of the preview calling Catalyst's API is another origin: refused even with the token.
    const crossSite = await fetch(`${service.catalyst.url}/api/ideas`, {
      headers: { origin, authorization: `Bearer ${service.catalyst.token}` },
    });
    expect(crossSite.status).toBe(403);

    const target = new URL(origin);
    const connect = await new Promise<string>((resolve, reject) => {
      const sock = connectTcp(Number(target.port), '127.0.0.1', () => {
        sock.write(`CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:22\r\nCookie: ${cookie}\r\n\r\n`);
      });
      let answer = '';
      sock.on('data', (chunk: Buffer) => (answer += chunk.toString()));
      sock.on('close', () => {
        resolve(answer.split('\r\n')[0] ?? '');
      });
      sock.on('error', reject);
    });
    expect(connect).toBe('HTTP/1.1 405 Method Not Allowed');

    // An answer that is not HTTP is a 502, and the connection to the host goes on.
    expect((await previewFetch(`${origin}/not-http`, { headers: { cookie } })).status).toBe(502);
    // A GET with a chunked body reaches the app as one request, never as a second one smuggled in it.
    const smuggled = 'GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n';
    const raw = await new Promise<string>((resolve, reject) => {
      const sock = connectTcp(Number(target.port), '127.0.0.1', () => {
        sock.write(
          `GET /chunked HTTP/1.1\r\nHost: x\r\nCookie: ${cookie}\r\nTransfer-Encoding: chunked\r\n\r\n` +
            `${smuggled.length.toString(16)}\r\n${smuggled}\r\n0\r\n\r\n`,
        );
      });
      sock.once('data', (chunk: Buffer) => {
        resolve(chunk.toString().split('\r\n')[0] ?? '');
        sock.destroy();
      });
      sock.on('error', reject);
    });
    expect(raw).toBe('HTTP/1.1 200 OK');
    const seenPaths = (await (
      await previewFetch(`${origin}/seen`, { headers: { cookie } })
    ).json()) as string[];
    expect(seenPaths).toContain('/chunked');
    expect(seenPaths).not.toContain('/smuggled');
    await post(service, `/api/ideas/${idea.id}/preview/stop`);
  });

  it('is a site of its own: its link opens it under its own name alone, and other sites’ pages are refused', async () => {
    // Issue 25, finding 7.
    const { service } = fixture;
    const { idea, view } = await runningPreview(service, 'Own site');
    const { url, origin } = view;
    if (url === undefined || origin === undefined) throw new Error('a running preview has a link');
    const { port } = new URL(origin);
    // A link used under another name (one Catalyst shares) sets no cookie, and is spent.
    const elsewhere = await rawAnswer(
      '127.0.0.1',
      port,
      `GET ${new URL(url).pathname}${new URL(url).search}`,
    );
    expect(elsewhere).toMatch(/^HTTP\/1\.1 403 /);
    expect(elsewhere.toLowerCase()).not.toContain('set-cookie');
    expect((await previewFetch(url)).status).toBe(403);
    // The browser tries ::1 first for a *.localhost name: the preview holds that address too.
    expect(await rawAnswer('::1', port, 'GET /')).toMatch(/^HTTP\/1\.1 401 /);

    const cookie = await enter(
      PreviewViewSchema.parse(await (await service.api(`/api/ideas/${idea.id}/preview`)).json()).url ?? '',
    );
    const statusOf = async (headers: Record<string, string>, method = 'GET') =>
      (await previewFetch(`${origin}/`, { method, headers: { cookie, ...headers } })).status;
    expect(await statusOf({ 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors' })).toBe(200);
    expect(await statusOf({ 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' })).toBe(200);
    expect(await statusOf({ 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'no-cors' })).toBe(403);
    expect(await statusOf({ 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors' })).toBe(403);
    expect(await statusOf({ 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'navigate' }, 'POST')).toBe(403);
    expect(await statusOf({ origin: 'http://p-0.localhost:1' }, 'POST')).toBe(403);
    const foreign = new WebSocket(`${origin.replace('http:', 'ws:')}/ws`, {
      headers: { cookie },
      origin: 'http://p-0.localhost:1',
      lookup: loopbackLookup,
    });
    const status = await new Promise<number>((resolve) =>
      foreign.once('unexpected-response', (_request, response) => {
        resolve(response.statusCode ?? 0);
      }),
    );
    expect(status).toBe(403);
    await post(service, `/api/ideas/${idea.id}/preview/stop`);
  });

  it('frames: its frame link sets a partitioned cookie, and it notes whether the app’s pages allow Catalyst’s frame', async () => {
    // Issue 31: the Preview tab shows the app in a frame when its headers allow.
    const { service } = fixture;
    const { idea, view } = await runningPreview(service, 'Framed');
    const { frameUrl, origin } = view;
    if (frameUrl === undefined || origin === undefined)
      throw new Error('a preview of its own name has a frame link');
    expect(view.frame).toBeUndefined();
    const framed = {
      'sec-fetch-dest': 'iframe',
      'sec-fetch-mode': 'navigate',
      'sec-fetch-site': 'cross-site',
    };
    const entered = await previewFetch(`${frameUrl}&to=${encodeURIComponent('/page?x=1')}`, {
      headers: framed,
    });
    expect(entered.status).toBe(303);
    expect(entered.headers.get('location')).toBe('/page?x=1');
    const setCookie = entered.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(
      /^catalyst_preview_\d+=[\w-]+; Path=\/; HttpOnly; SameSite=None; Secure; Partitioned$/,
    );
    // Where a frame link goes stays on the preview's own site.
    const again = (await previewOf(service, idea.id)).frameUrl ?? '';
    const offSite = await previewFetch(`${again}&to=${encodeURIComponent('//evil.example/')}`, {
      headers: framed,
    });
    expect(offSite.headers.get('location')).toBe('/');

    const cookie = setCookie.split(';')[0] ?? '';
    const load = async (path: string, headers = framed) => {
      const answer = await previewFetch(`${origin}${path}`, { headers: { cookie, ...headers } });
      expect(answer.status).toBe(200);
      return answer;
    };
    // Passed on as the app sent it: never rewritten to force a frame.
    expect((await load('/?xfo=DENY')).headers.get('x-frame-options')).toBe('DENY');
    expect((await previewOf(service, idea.id)).frame).toEqual({
      path: '/?xfo=DENY',
      loads: 1,
      refusal: 'x-frame-options',
    });
    await load(`/?csp=${encodeURIComponent("frame-ancestors 'self'")}`);
    expect((await previewOf(service, idea.id)).frame?.refusal).toBe('frame-ancestors');
    // Catalyst's page is at the origin the API was asked from.
    const allowing = `/?xfo=DENY&csp=${encodeURIComponent(`frame-ancestors ${service.catalyst.url}`)}`;
    await load(allowing);
    expect((await previewOf(service, idea.id)).frame).toEqual({ path: allowing, loads: 3 });
    // A page loaded in a tab, or a fetch, is no frame.
    await load('/?xfo=DENY', { ...framed, 'sec-fetch-dest': 'document' });
    await load('/?xfo=DENY', {
      'sec-fetch-dest': 'empty',
      'sec-fetch-mode': 'cors',
      'sec-fetch-site': 'same-origin',
    });
    expect((await previewOf(service, idea.id)).frame?.loads).toBe(3);
    await post(service, `/api/ideas/${idea.id}/preview/stop`);
  });

  it('drops Catalyst’s cookies from a WebSocket handshake whatever its lines end with, and rewrites it valid', async () => {
    const { service } = fixture;
    const { idea, view } = await runningPreview(service, 'Odd handshakes');
    const { url, origin } = view;
    if (url === undefined || origin === undefined) throw new Error('a running preview has a link');
    const cookie = await enter(url);
    for (const path of ['/ws-odd-lines', '/ws-lf-only']) {
      const { head, echo } = await rawHandshake(origin, path, cookie);
      // Every line ends with CRLF: no bare \r or \n is left for a browser to split on.
      expect(head, path).toMatch(/^HTTP\/1\.1 101 Switching Protocols\r\n([^\r\n]+\r\n)+\r\n$/);
      expect(head.toLowerCase(), path).not.toContain('catalyst_');
      expect(head, path).toContain('\r\nSet-Cookie: ws_cookie=1\r\n');
      // What follows the head is the app's WebSocket, untouched.
      expect(echo, path).toBe('after the head');
    }
    // A 100 Continue before the 101: only a 101 head is ever passed on, the rest is a 502 (the 101 head after it
    // would otherwise go through unread, Set-Cookie and all).
    const refused = await rawUpgradeAnswer(origin, '/ws-continue-first', cookie);
    expect(refused).toBe('HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    await post(service, `/api/ideas/${idea.id}/preview/stop`);
  });

  it('lists the ports it listens on, stops with nothing left, and says why a command crashed', async () => {
    const { service } = fixture;
    const { idea, port, view } = await runningPreview(service, 'Stopped and crashed');
    const ports = ListeningPortsResponseSchema.parse(
      await (await service.api(`/api/ideas/${idea.id}/preview/ports`)).json(),
    );
    expect(ports.ports).toEqual([{ port, source: 'preview' }]);
    const link = await post(service, `/api/ideas/${idea.id}/preview/ports/${port}/link`);
    expect(PreviewLinkResponseSchema.parse(await link.json()).origin).toBe(view.origin);
    const notListening = await post(service, `/api/ideas/${idea.id}/preview/ports/${port + 1}/link`);
    expect(notListening.status).toBe(404);
    expect(ApiErrorBodySchema.parse(await notListening.json()).error.code).toBe('PREVIEW_PORT_NOT_LISTENING');

    expect(await fixture.runProcesses(idea.id)).not.toEqual([]);
    // A refused upgrade whose client never hangs up does not hold the stop.
    if (view.origin === undefined) throw new Error('a running preview has an origin');
    const lingering = new URL(view.origin);
    const held = connectTcp(Number(lingering.port), '127.0.0.1', () => {
      held.write('GET /ws HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n');
    });
    held.on('error', () => undefined);
    await new Promise((resolve) => held.once('data', resolve));
    const stopped = await post(service, `/api/ideas/${idea.id}/preview/stop`);
    expect(PreviewViewSchema.parse(await stopped.json()).state).toBe('stopped');
    expect(await fixture.runProcesses(idea.id)).toEqual([]);
    await expect(previewFetch(`${view.origin}/`)).rejects.toThrow();
    held.destroy();

    await post(service, `/api/ideas/${idea.id}`, {
      previewCommand: "echo 'Error: listen EADDRINUSE: address already in use' >&2; exit 3",
    });
    await post(service, `/api/ideas/${idea.id}/preview/start`);
    const crashed = await untilState(service, idea.id, 'crashed');
    expect(crashed.exit).toEqual({ code: 3, signal: null });
    expect(crashed.lastOutput).toEqual(['Error: listen EADDRINUSE: address already in use']);
    expect(crashed.url).toBeUndefined();

    const unset = await post(service, `/api/ideas/${idea.id}`, { previewCommand: null });
    expect(unset.status).toBe(200);
    const refused = await post(service, `/api/ideas/${idea.id}/preview/start`);
    expect(refused.status).toBe(409);
    expect(ApiErrorBodySchema.parse(await refused.json()).error.code).toBe('PREVIEW_NOT_CONFIGURED');
  });

  it('stops a preview nobody uses after CATALYST_PREVIEW_IDLE_MS, and when its idea is deleted', async () => {
    const idle = await fixture.startAnother({ env: { CATALYST_PREVIEW_IDLE_MS: '4000' } });
    const { idea } = await runningPreview(idle, 'Idle');
    await untilState(idle, idea.id, 'stopped');
    expect(await fixture.runProcesses(idea.id, idle)).toEqual([]);

    const { idea: deleted } = await runningPreview(fixture.service, 'Deleted');
    const response = await fixture.service.api(`/api/ideas/${deleted.id}`, { method: 'DELETE' });
    expect(response.status).toBe(204);
    expect(await fixture.runProcesses(deleted.id)).toEqual([]);
  });

  it('goes on through a build, and restarts after a restore', async () => {
    const { service } = fixture;
    const { idea } = await runningPreview(service, 'Restored');
    // The preview's processes (after a build, the idea's next claude also waits there, warm).
    const tagsOf = async () =>
      new Set(
        (await fixture.runProcesses(idea.id))
          .filter((process) => process.cmdline.includes('server.cjs'))
          .map((process) => process.runTag),
      );
    const [previewTag] = await tagsOf();
    if (previewTag === undefined) throw new Error('a running preview has processes');
    const client = await service.connect();
    await client.subscribe(idea.id);
    fixture.model.enqueue(
      toolUse('Bash', { command: "printf 'v2\\n' > page.txt", description: 'Change the page' }),
      text('Changed.'),
    );
    const events = await client.run(idea.id, 'build', 'Change the page');
    const checkpoint = events.find(
      (event): event is Extract<RelayEvent, { type: 'checkpoint:created' }> =>
        event.type === 'checkpoint:created' && event.kind === 'build',
    );
    expect(checkpoint?.parent).toBeTruthy();
    expect((await previewOf(service, idea.id)).state).toBe('running');
    expect(await tagsOf()).toEqual(new Set([previewTag]));

    const restored = await post(service, `/api/ideas/${idea.id}/checkpoints/${checkpoint?.parent}/restore`);
    expect(restored.status).toBe(200);
    await waitUntil(
      async () => {
        const tags = await tagsOf();
        return (
          tags.size === 1 && !tags.has(previewTag) && (await previewOf(service, idea.id)).state === 'running'
        );
      },
      { timeoutMs: 20_000, intervalMs: 100, what: 'the preview to run again under a new tag' },
    );
    client.close();
    await post(service, `/api/ideas/${idea.id}/preview/stop`);
  });

  it('proposes the dev server a package.json names', async () => {
    const { service } = fixture;
    const idea = await service.createIdea('Suggested');
    await writeFile(
      join(service.projectDir(idea.id), 'package.json'),
      JSON.stringify({ scripts: { build: 'vite build', dev: 'vite --port 5180' } }),
    );
    expect((await previewOf(service, idea.id)).suggestion).toEqual({
      command: 'npm run dev',
      port: 5180,
      source: 'package.json script "dev": vite --port 5180',
    });
  });
});

/**
 * A WebSocket handshake on a raw socket, read as a browser reads the answer (its head ends at the first empty line,
 * a line ending at \n with an optional \r before it), then one text frame echoed by the app.
 */
function rawHandshake(origin: string, path: string, cookie: string): Promise<{ head: string; echo: string }> {
  const target = new URL(origin);
  return new Promise((resolve, reject) => {
    let received = Buffer.alloc(0);
    let head: string | undefined;
    const sock = connectTcp(Number(target.port), '127.0.0.1', () => {
      sock.write(
        `GET ${path} HTTP/1.1\r\nHost: ${target.host}\r\nCookie: ${cookie}\r\nConnection: Upgrade\r\n` +
          'Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
      );
    });
    const timer = setTimeout(() => {
      sock.destroy();
      const sofar = received.toString('latin1');
      reject(
        new Error(`no complete handshake answer for ${path} in 10 s (so far: ${JSON.stringify(sofar)})`),
      );
    }, 10_000);
    const payload = Buffer.from('after the head');
    sock.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (head === undefined) {
        const end = /\n\r?\n/.exec(received.toString('latin1'));
        if (end === null) return;
        head = received.subarray(0, end.index + end[0].length).toString('latin1');
        received = received.subarray(end.index + end[0].length);
        const mask = Buffer.from([1, 2, 3, 4]);
        const masked = payload.map((byte, index) => byte ^ (mask[index % 4] ?? 0));
        sock.write(Buffer.concat([Buffer.from([0x81, 0x80 | payload.length]), mask, masked]));
      }
      if (received.length < 2 + payload.length) return;
      clearTimeout(timer);
      sock.destroy();
      resolve({ head, echo: received.subarray(2, 2 + payload.length).toString() });
    });
    sock.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

/** Everything the preview answers to a WebSocket handshake on a raw socket until it closes (at most 5 s). */
function rawUpgradeAnswer(origin: string, path: string, cookie: string): Promise<string> {
  const target = new URL(origin);
  return new Promise((resolve, reject) => {
    let answer = '';
    const sock = connectTcp(Number(target.port), '127.0.0.1', () => {
      sock.write(
        `GET ${path} HTTP/1.1\r\nHost: ${target.host}\r\nCookie: ${cookie}\r\nConnection: Upgrade\r\n` +
          'Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
      );
    });
    const timer = setTimeout(() => sock.destroy(), 5_000);
    sock.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
    sock.on('close', () => {
      clearTimeout(timer);
      resolve(answer);
    });
    sock.on('error', reject);
  });
}

/** The status line and headers of one request sent on a raw socket to `address:port`. */
function rawAnswer(address: string, port: string, requestLine: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = connectTcp(Number(port), address, () => {
      sock.write(
        `${requestLine} HTTP/1.1\r\nHost: ${address.includes(':') ? `[${address}]` : address}:${port}\r\nConnection: close\r\n\r\n`,
      );
    });
    let answer = '';
    sock.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
    sock.on('close', () => {
      resolve(answer.split('\r\n\r\n')[0] ?? '');
    });
    sock.on('error', reject);
  });
}
