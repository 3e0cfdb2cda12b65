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
  type PreviewState,
  type RelayEvent,
  type PreviewView,
} from '@catalyst/protocol';
import { colorQuestion, freePort, text, toolUse, waitUntil } from '@catalyst/testkit';
import { startRun, waitForQuestion } from './question-client.ts';
import { useServiceFixture, type ServiceUnderTest } from './service-harness.ts';

// Previews (issue 14), over the test kit's sshd: a small app (fixtures/preview-server.cjs) started as an idea's
// preview command on the VM, reached through Catalyst's preview server (an SSH direct-tcpip channel per
// connection), behind the preview's own one-time link and cookie.

const fixture = useServiceFixture();
const APP = join(import.meta.dirname, 'fixtures', 'preview-server.cjs');

async function previewOf(service: ServiceUnderTest, ideaId: string): Promise<PreviewView> {
  const response = await service.api(`/api/ideas/${ideaId}/preview`);
  expect(response.status).toBe(200);
  return PreviewViewSchema.parse(await response.json());
}

async function untilState(
  service: ServiceUnderTest,
  ideaId: string,
  state: PreviewState,
): Promise<PreviewView> {
  let view: PreviewView | undefined;
  await waitUntil(
    async () => {
      view = await previewOf(service, ideaId);
      return view.state === state;
    },
    { timeoutMs: 20_000, intervalMs: 100, what: `the preview to be ${state} (last: ${view?.state})` },
  );
  if (view === undefined) throw new Error('unreachable');
  return view;
}

async function post(service: ServiceUnderTest, path: string, body?: unknown): Promise<Response> {
  return service.api(path, {
    method: body === undefined ? 'POST' : 'PATCH',
    ...(body === undefined
      ? {}
      : { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }),
  });
}

/** An idea whose preview is the fixture app on a free port, started and running. */
async function runningPreview(service: ServiceUnderTest, title: string) {
  const idea = await service.createIdea(title);
  await copyFile(APP, join(service.projectDir(idea.id), 'server.cjs'));
  const port = await freePort();
  const patched = await post(service, `/api/ideas/${idea.id}`, {
    previewCommand: 'node server.cjs',
    previewPort: port,
  });
  expect(patched.status).toBe(200);
  const started = await post(service, `/api/ideas/${idea.id}/preview/start`);
  expect(started.status).toBe(200);
  expect(PreviewViewSchema.parse(await started.json()).state).toBe('starting');
  const view = await untilState(service, idea.id, 'running');
  return { idea, port, view };
}

/** Opens a one-time link as a browser would: its answer sets the preview's cookie and sends it to `/`. */
async function enter(url: string): Promise<string> {
  const response = await fetch(url, { redirect: 'manual' });
  expect(response.status).toBe(303);
  expect(response.headers.get('location')).toBe('/');
  const cookie = response.headers.get('set-cookie') ?? '';
  expect(cookie).toMatch(/^catalyst_preview_\d+=[\w-]+; Path=\/; HttpOnly; SameSite=Lax$/);
  return cookie.split(';')[0] ?? '';
}

describe('previews', () => {
  it('serves the app through its own port and cookie: GET, 5 MB, 50 at once, a WebSocket echo', async () => {
    const { service } = fixture;
    const { idea, port, view } = await runningPreview(service, 'Previewed');
    expect(view).toMatchObject({ command: 'node server.cjs', port });
    expect(view.lastOutput).toContain(`preview app listening on ${port}`);
    const { url, origin } = view;
    if (url === undefined || origin === undefined) throw new Error('a running preview has a link');
    expect(origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(new URL(origin).port).not.toBe(String(service.catalyst.port));

    // Without the cookie: refused. A used link: refused.
    expect((await fetch(`${origin}/`)).status).toBe(401);
    const cookie = await enter(url);
    expect((await fetch(url, { redirect: 'manual' })).status).toBe(403);

    const home = await fetch(`${origin}/`, { headers: { cookie } });
    expect(home.status).toBe(200);
    expect(await home.text()).toContain('Hello from the preview');
    // The app's own cookie passes; one that would replace Catalyst's login does not.
    expect(home.headers.getSetCookie()).toEqual(['app_cookie=1; Path=/']);

    const big = await fetch(`${origin}/big`, { headers: { cookie } });
    expect(Buffer.from(await big.arrayBuffer())).toHaveLength(5 * 1024 * 1024);
    const upload = Buffer.alloc(5 * 1024 * 1024, 7);
    const echoed = await fetch(`${origin}/echo`, { method: 'POST', headers: { cookie }, body: upload });
    expect(Buffer.from(await echoed.arrayBuffer()).equals(upload)).toBe(true);

    const paths = await Promise.all(
      Array.from({ length: 50 }, async (_, index) => {
        const response = await fetch(`${origin}/page-${index}`, { headers: { cookie } });
        return /<p id="path">([^<]*)<\/p>/.exec(await response.text())?.[1];
      }),
    );
    expect(paths).toEqual(Array.from({ length: 50 }, (_, index) => `/page-${index}`));
    // The app has closed its idle kept-alive connections by now (after 300 ms): a channel it closed is not reused.
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(
      (await fetch(`${origin}/again`, { headers: { cookie }, signal: AbortSignal.timeout(5_000) })).status,
    ).toBe(200);

    const socket = new WebSocket(`${origin.replace('http:', 'ws:')}/ws`, { headers: { cookie } });
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
    const refused = new WebSocket(`${origin.replace('http:', 'ws:')}/ws`);
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
    const api = await fetch(`${origin}/api/ideas`, {
      headers: { cookie, authorization: `Bearer ${service.catalyst.token}` },
    });
    expect(await api.text()).toContain('<p id="path">/api/ideas</p>');

    const seen = await fetch(`${origin}/headers`, {
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
      const sock = connectTcp(Number(target.port), target.hostname, () => {
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
    expect((await fetch(`${origin}/not-http`, { headers: { cookie } })).status).toBe(502);
    // A GET with a chunked body reaches the app as one request, never as a second one smuggled in it.
    const smuggled = 'GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n';
    const raw = await new Promise<string>((resolve, reject) => {
      const sock = connectTcp(Number(target.port), target.hostname, () => {
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
    const seenPaths = (await (await fetch(`${origin}/seen`, { headers: { cookie } })).json()) as string[];
    expect(seenPaths).toContain('/chunked');
    expect(seenPaths).not.toContain('/smuggled');
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
    const held = connectTcp(Number(lingering.port), lingering.hostname, () => {
      held.write('GET /ws HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n');
    });
    held.on('error', () => undefined);
    await new Promise((resolve) => held.once('data', resolve));
    const stopped = await post(service, `/api/ideas/${idea.id}/preview/stop`);
    expect(PreviewViewSchema.parse(await stopped.json()).state).toBe('stopped');
    expect(await fixture.runProcesses(idea.id)).toEqual([]);
    await expect(fetch(`${view.origin}/`)).rejects.toThrow();
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
    const idle = await fixture.startAnother({ env: { CATALYST_PREVIEW_IDLE_MS: '1500' } });
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

  it('lists the port a running build listens on, and opens it', async () => {
    const { service } = fixture;
    const idea = await service.createIdea('Build server');
    await copyFile(APP, join(service.projectDir(idea.id), 'server.cjs'));
    const port = await freePort();
    const client = await service.connect();
    await client.subscribe(idea.id);
    fixture.model.enqueue(
      toolUse('Bash', {
        command: `PORT=${port} node server.cjs`,
        description: 'Start the app',
        run_in_background: true,
      }),
      toolUse('AskUserQuestion', { questions: [colorQuestion] }),
      text('Done.'),
    );
    const started = await startRun(client, {
      ideaId: idea.id,
      mode: 'build',
      message: 'Start it and ask me',
    });
    const question = await waitForQuestion(client, 0);
    let ports: unknown;
    await waitUntil(
      async () => {
        ports = ListeningPortsResponseSchema.parse(
          await (await service.api(`/api/ideas/${idea.id}/preview/ports`)).json(),
        ).ports;
        return Array.isArray(ports) && ports.length > 0;
      },
      { timeoutMs: 10_000, intervalMs: 200, what: 'the build’s server to listen' },
    );
    expect(ports).toEqual([{ port, source: 'run' }]);
    const link = PreviewLinkResponseSchema.parse(
      await (await post(service, `/api/ideas/${idea.id}/preview/ports/${port}/link`)).json(),
    );
    const cookie = await enter(link.url);
    expect(await (await fetch(`${link.origin}/from-the-build`, { headers: { cookie } })).text()).toContain(
      '<p id="path">/from-the-build</p>',
    );
    client.send({
      type: 'answer',
      ideaId: idea.id,
      questionId: question.questionId,
      answers: { [colorQuestion.question]: 'Blue' },
    });
    await client.untilEnded(started);
    client.close();
    const after = ListeningPortsResponseSchema.parse(
      await (await service.api(`/api/ideas/${idea.id}/preview/ports`)).json(),
    );
    expect(after.ports).toEqual([]);
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
