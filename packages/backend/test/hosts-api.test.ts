import { readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, apiPath, type HostCheckView } from '@catalyst/protocol';
import {
  createTempDir,
  opensshFingerprint,
  text,
  writeSshClientConfig,
  type TempDir,
} from '@catalyst/testkit';
import { useServiceFixture, type ServiceUnderTest } from './service-harness.ts';
import { callApi } from './api-call.ts';

// Hosts managed in the app (issue 28), as a person meets them: add the VM by the alias `ssh` knows, see its key's
// fingerprint, confirm it, watch the check pass step by step, run an idea there with no restart; the host and its
// idea still there after a restart; removing a host that holds ideas asks first, and its ideas come back with it.

const suite = useServiceFixture();
let dir: TempDir;
let sshConfig: string;
let userKnownHosts: string;

beforeAll(async () => {
  dir = await createTempDir('hosts-api');
  const { sshd } = suite;
  const hosts = { devbox: sshd.users.bash, nologin: sshd.users.dash };
  ({ configPath: sshConfig, knownHostsPath: userKnownHosts } = await writeSshClientConfig(sshd, {
    dir: dir.path,
    hosts,
  }));
});
afterAll(async () => {
  await dir.remove();
});

const call = callApi;

function errorCode(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || !('error' in body)) return undefined;
  const { error } = body;
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : undefined;
}

function stepsOf(check: HostCheckView): Record<string, string> {
  return Object.fromEntries(check.steps.map((step) => [step.id, step.status]));
}

async function checkAndTrust(catalyst: ServiceUnderTest, name: string): Promise<HostCheckView> {
  const first = await call(catalyst, apiPath(API.checkHost, { params: { name } }), { method: 'POST' });
  const { check } = API.checkHost.response.parse(first.body);
  expect(check.unknownHostKey?.fingerprint).toBe(await opensshFingerprint(suite.sshd.hostKeyLine));
  const trusted = await call(catalyst, apiPath(API.trustHostKey, { params: { name } }), {
    method: 'POST',
    body: { fingerprint: check.unknownHostKey?.fingerprint },
  });
  expect(trusted.status).toBe(200);
  return API.trustHostKey.response.parse(trusted.body).check;
}

describe('hosts added in the app', () => {
  it('adds a VM by its alias, confirms its key by fingerprint, checks it, runs an idea there, and keeps it across a restart', async () => {
    const env = { CATALYST_SSH_CONFIG_FILE: sshConfig };
    const catalyst = await suite.startAnother({ env });
    const ideasRoot = join(suite.sshd.users.bash.home, `catalyst-e2e-added-${String(Date.now())}`);
    try {
      const aliases = await call(catalyst, apiPath(API.sshAliases));
      expect(API.sshAliases.response.parse(aliases.body)).toEqual({ aliases: ['devbox', 'nologin'] });

      const body = { name: 'devbox', target: 'devbox', claudePath: suite.claudePath, ideasRoot };
      const added = await call(catalyst, apiPath(API.addHost), { method: 'POST', body });
      expect(added.status).toBe(201);
      expect(API.addHost.response.parse(added.body).host).toMatchObject({ name: 'devbox', source: 'app' });
      expect(errorCode((await call(catalyst, apiPath(API.addHost), { method: 'POST', body })).body)).toBe(
        'HOST_EXISTS',
      );
      const unknown = await call(catalyst, apiPath(API.addHost), {
        method: 'POST',
        body: { name: 'typo', target: 'devbx' },
      });
      expect(unknown.status).toBe(400);
      expect(JSON.stringify(unknown.body)).toContain(
        'devbx is not a Host of ~/.ssh/config (it has devbox, nologin)',
      );

      // Its key is known nowhere: refused with the fingerprint, the later steps not run.
      const first = await call(catalyst, apiPath(API.checkHost, { params: { name: 'devbox' } }), {
        method: 'POST',
      });
      const { check } = API.checkHost.response.parse(first.body);
      expect(stepsOf(check)).toMatchObject({
        resolve: 'ok',
        connect: 'ok',
        'host-key': 'failed',
        claude: 'skipped',
      });
      expect(check.isReady).toBe(false);
      expect(check.unknownHostKey).toMatchObject({
        fingerprint: await opensshFingerprint(suite.sshd.hostKeyLine),
        keyType: 'ssh-ed25519',
        knownHostsName: `[127.0.0.1]:${String(suite.sshd.port)}`,
      });
      const wrong = await call(catalyst, apiPath(API.trustHostKey, { params: { name: 'devbox' } }), {
        method: 'POST',
        body: { fingerprint: 'SHA256:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU' },
      });
      expect(errorCode(wrong.body)).toBe('FINGERPRINT_MISMATCH');
      const trusted = await call(catalyst, apiPath(API.trustHostKey, { params: { name: 'devbox' } }), {
        method: 'POST',
        body: { fingerprint: `  ${check.unknownHostKey?.fingerprint ?? ''}  ` },
      });
      const ready = API.trustHostKey.response.parse(trusted.body).check;
      expect(stepsOf(ready)).toEqual({
        resolve: 'ok',
        connect: 'ok',
        'host-key': 'ok',
        auth: 'ok',
        claude: 'ok',
        login: 'ok',
        tools: 'ok',
        disk: 'ok',
      });
      expect(ready.isReady).toBe(true);
      // What an idea's page reads of its host, without connecting: the last check (not an older one still running).
      const detail = await call(catalyst, apiPath(API.getHost, { params: { name: 'devbox' } }));
      expect(API.getHost.response.parse(detail.body).lastCheck?.isReady).toBe(true);
      // Confirmed into Catalyst's own file (0600), never the person's.
      const catalystKnownHosts = join(catalyst.configDir.path, 'known_hosts');
      expect((await stat(catalystKnownHosts)).mode & 0o777).toBe(0o600);
      expect(await readFile(catalystKnownHosts, 'utf8')).toContain(
        suite.sshd.hostKeyLine.split(' ')[1] ?? '-',
      );
      expect(await readFile(userKnownHosts, 'utf8')).toBe('');

      // Used at once: an idea on it, a run that completes.
      const created = await call(catalyst, apiPath(API.createIdea), {
        method: 'POST',
        body: { title: 'On the added host', host: 'devbox' },
      });
      const { idea } = API.createIdea.response.parse(created.body);
      expect(idea.host).toBe('devbox');
      suite.model.enqueue(text('Hello from the added host.'));
      const client = await catalyst.connect();
      await client.subscribe(idea.id);
      const events = await client.run(idea.id, 'chat', 'Hello?');
      expect(events.at(-1)).toMatchObject({ type: 'run:ended', outcome: 'completed' });
      client.close();

      // A restart: the host and its idea are still there.
      await catalyst.stop();
      const again = await suite.startAnother({
        env,
        reuse: { configDir: catalyst.configDir, ideasRoot: catalyst.ideasRoot },
      });
      const hosts = API.hosts.response.parse((await call(again, apiPath(API.hosts))).body).hosts;
      expect(hosts.find((host) => host.name === 'devbox')).toMatchObject({
        source: 'app',
        target: 'devbox',
        reachable: true,
      });
      const ideas = API.listIdeas.response.parse((await call(again, apiPath(API.listIdeas))).body).ideas;
      expect(ideas.find((known) => known.id === idea.id)?.host).toBe('devbox');

      // Removing it asks first, says how many ideas it holds; they come back with the host.
      const refused = await call(again, apiPath(API.deleteHost, { params: { name: 'devbox' } }), {
        method: 'DELETE',
      });
      expect(errorCode(refused.body)).toBe('HOST_HAS_IDEAS');
      expect(JSON.stringify(refused.body)).toContain('devbox holds 1 idea');
      expect(refused.body).toMatchObject({ error: { ideaCount: 1 } });
      const removed = await call(
        again,
        apiPath(API.deleteHost, { params: { name: 'devbox' }, query: { confirm: 'true' } }),
        {
          method: 'DELETE',
        },
      );
      expect(removed.status).toBe(204);
      const without = API.listIdeas.response.parse((await call(again, apiPath(API.listIdeas))).body).ideas;
      expect(without.some((known) => known.id === idea.id)).toBe(false);
      expect((await call(again, apiPath(API.addHost), { method: 'POST', body })).status).toBe(201);
      const back = API.listIdeas.response.parse((await call(again, apiPath(API.listIdeas))).body).ideas;
      expect(back.find((known) => known.id === idea.id)?.host).toBe('devbox');
      await again.stop();
    } finally {
      await rm(ideasRoot, { recursive: true, force: true });
    }
  });

  it('says, step by step, that claude on the VM is not logged in, and what to do', async () => {
    const catalyst = await suite.startAnother({ env: { CATALYST_SSH_CONFIG_FILE: sshConfig } });
    const added = await call(catalyst, apiPath(API.addHost), {
      method: 'POST',
      body: { name: 'nologin', target: 'nologin', claudePath: suite.claudePath },
    });
    expect(added.status).toBe(201);
    const check = await checkAndTrust(catalyst, 'nologin');
    expect(stepsOf(check)).toMatchObject({ auth: 'ok', claude: 'ok', login: 'failed' });
    const login = check.steps.find((step) => step.id === 'login');
    expect(login?.detail).toBe('claude on the VM is not logged in');
    expect(login?.fix).toContain('ssh -t nologin claude');
    expect(check.isReady).toBe(false);
    const detail = await call(catalyst, apiPath(API.getHost, { params: { name: 'nologin' } }));
    const { lastCheck } = API.getHost.response.parse(detail.body);
    expect(lastCheck?.steps.find((step) => step.id === 'login')?.status).toBe('failed');
    // The list (and `catalyst hosts`) says it too: reachable is not ready (issue 40).
    const listed = API.hosts.response.parse((await call(catalyst, apiPath(API.hosts))).body).hosts;
    expect(listed.find((host) => host.name === 'nologin')).toMatchObject({
      reachable: true,
      lastCheck: { isReady: false, failed: ['login: claude on the VM is not logged in'] },
    });
  });

  it('refuses to change or remove a host of the config file', async () => {
    const { service } = suite;
    const update = await call(service, apiPath(API.updateHost, { params: { name: 'vm' } }), {
      method: 'PATCH',
      body: { ideasRoot: '~/elsewhere' },
    });
    expect(errorCode(update.body)).toBe('HOST_READ_ONLY');
    const remove = await call(service, apiPath(API.deleteHost, { params: { name: 'vm' } }), {
      method: 'DELETE',
    });
    expect(errorCode(remove.body)).toBe('HOST_READ_ONLY');
  });
});
