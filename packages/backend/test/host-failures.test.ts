import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiErrorBodySchema, HostsResponseSchema } from '@catalyst/protocol';
import { createTempDir, freePort, startSshd, type SshdHandle, type TempDir } from '@catalyst/testkit';
import { createHostFromEntry, startCatalyst, type RunningCatalyst } from '../src/app.ts';
import { createSshHost } from '../src/host/ssh/ssh-host.ts';
import { loadConfig, type HostEntry } from '../src/server/config.ts';
import { openClient } from './server-ws-client.ts';

// Every way a VM can fail Catalyst (a refused key, a host key that is not the pinned one, nothing listening, a
// server that never answers) reaches REST and WebSocket callers as a 503 with the SSH layer's own sentence, and
// GET /api/hosts shows it as that host's problem. The sshd is real; the "timeout" host is a loopback port that
// accepts and never speaks.

const run = promisify(execFile);

let sshd: SshdHandle;
let dir: TempDir;
let silent: Server;
const sockets = new Set<Socket>();
let catalyst: RunningCatalyst;

/** A known idea id per failing host, planted in the index as if the idea had been made while the host worked. */
const KNOWN_IDEAS = {
  refused: 'idea-aaaaaaaaaaaaaaa1',
  mismatch: 'idea-aaaaaaaaaaaaaaa2',
  closed: 'idea-aaaaaaaaaaaaaaa3',
  silent: 'idea-aaaaaaaaaaaaaaa4',
} as const;
type FailingHost = keyof typeof KNOWN_IDEAS;

/** What the SSH layer says of each, in words a person acts on. */
const SENTENCES: Record<FailingHost, RegExp> = {
  refused: /refused the key/,
  mismatch: /host key/i,
  closed: /ECONNREFUSED/,
  silent: /Timed out while waiting for handshake/,
};

async function listeningPort(server: Server): Promise<number> {
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

beforeAll(async () => {
  sshd = await startSshd();
  dir = await createTempDir('host-failures');
  await run('/usr/bin/ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir.path, 'stranger')]);
  await run('/usr/bin/ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir.path, 'other-host')]);
  const otherHostKey = (await readFile(join(dir.path, 'other-host.pub'), 'utf8'))
    .split(' ')
    .slice(0, 2)
    .join(' ');
  silent = createServer((socket) => sockets.add(socket)).listen(0, '127.0.0.1');
  const silentPort = await listeningPort(silent);

  const base = {
    kind: 'ssh',
    address: sshd.host,
    port: sshd.port,
    user: sshd.users.dash.name,
    privateKeyPath: sshd.clientKeyPath,
    hostKey: sshd.hostKeyLine,
  };
  const hosts = [
    { ...base, name: 'refused', privateKeyPath: join(dir.path, 'stranger') },
    { ...base, name: 'mismatch', hostKey: `[127.0.0.1]:${String(sshd.port)} ${otherHostKey}` },
    { ...base, name: 'closed', port: await freePort(), hostKey: `[127.0.0.1]:1 ${otherHostKey}` },
    { ...base, name: 'silent', port: silentPort, hostKey: `[127.0.0.1]:1 ${otherHostKey}` },
  ];
  await writeFile(join(dir.path, 'hosts.json'), JSON.stringify({ hosts }));
  await writeFile(
    join(dir.path, 'ideas-index.json'),
    JSON.stringify({
      version: 1,
      ideas: Object.fromEntries(Object.entries(KNOWN_IDEAS).map(([h, id]) => [id, h])),
    }),
  );
  const config = loadConfig(
    { CATALYST_PORT: '0', CATALYST_CONFIG_DIR: dir.path, CATALYST_CONFIG_FILE: join(dir.path, 'hosts.json') },
    { homeDir: dir.path },
  );
  catalyst = await startCatalyst({
    config,
    logger: pino({ level: 'silent' }),
    // A short handshake timeout for the silent server only, so its failure takes a second rather than a minute; the
    // others answer, and a busy machine may take more than that to say how (a timeout there is not their sentence).
    createHost: (entry: HostEntry) =>
      entry.kind === 'ssh' && entry.connect.via === 'fields'
        ? createSshHost(
            {
              address: entry.connect.address,
              port: entry.connect.port,
              user: entry.connect.user,
              privateKeyPath: entry.connect.privateKeyPath,
              hostKey: entry.connect.hostKey,
              timing: { readyTimeoutMs: entry.name === 'silent' ? 300 : 30_000 },
              pool: { connectBackoffMs: 10 },
            },
            {},
          )
        : createHostFromEntry(entry, { configDir: dir.path }),
  });
});

afterAll(async () => {
  await catalyst.close();
  for (const socket of sockets) socket.destroy();
  silent.close();
  await sshd.stop();
  await dir.remove();
});

function api(path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${catalyst.url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${catalyst.token}`, 'content-type': 'application/json' },
  });
}

const failing = Object.keys(KNOWN_IDEAS) as FailingHost[];

describe('a host that fails', () => {
  it.each(failing)('%s: creating an idea there answers 503 with the SSH layer`s sentence', async (host) => {
    const response = await api('/api/ideas', {
      method: 'POST',
      body: JSON.stringify({ title: 'Here', host }),
    });
    expect(response.status).toBe(503);
    const { error } = ApiErrorBodySchema.parse(await response.json());
    expect(error.code).toBe('HOST_UNAVAILABLE');
    expect(error.message).toContain(`Host ${host} is unavailable`);
    expect(error.message).toMatch(SENTENCES[host]);
  });

  it.each(failing)(
    '%s: opening a known idea there answers 503 HOST_UNAVAILABLE with that sentence',
    async (host) => {
      const response = await api(`/api/ideas/${KNOWN_IDEAS[host]}`);
      expect(response.status).toBe(503);
      const { error } = ApiErrorBodySchema.parse(await response.json());
      expect(error.code).toBe('HOST_UNAVAILABLE');
      expect(error.message).toContain(`Host ${host} is unavailable`);
      expect(error.message).toMatch(SENTENCES[host]);
    },
  );

  it('GET /api/hosts shows each as that host`s problem, in its words', async () => {
    const response = await api('/api/hosts');
    expect(response.status).toBe(200);
    const { hosts } = HostsResponseSchema.parse(await response.json());
    for (const host of failing) {
      const shown = hosts.find((candidate) => candidate.name === host);
      expect(shown, host).toMatchObject({ reachable: false });
      expect(shown?.error, host).toMatch(SENTENCES[host]);
    }
  });

  it('a WebSocket chat for an idea on each answers an error frame with that sentence, and the socket stays', async () => {
    const client = await openClient(`${catalyst.url.replace('http', 'ws')}/ws`, {
      headers: { authorization: `Bearer ${catalyst.token}` },
    });
    try {
      for (const host of failing) {
        client.send({ type: 'chat', ideaId: KNOWN_IDEAS[host], message: 'Hello?', requestId: host });
        const frame = await client.next();
        expect(frame, host).toMatchObject({ type: 'error', code: 'HOST_UNAVAILABLE', requestId: host });
        expect('message' in frame ? frame.message : '', host).toMatch(SENTENCES[host]);
      }
      client.send({ type: 'subscribe', ideaId: 'idea-does-not-exist!' });
      expect(await client.next()).toMatchObject({ type: 'error', code: 'INVALID_FRAME' });
    } finally {
      client.socket.close();
    }
  });
});
