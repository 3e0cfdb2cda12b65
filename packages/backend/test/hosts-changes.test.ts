import { randomBytes } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, apiPath } from '@catalyst/protocol';
import { createTempDir, waitUntil, writeSshClientConfig, type TempDir } from '@catalyst/testkit';
import { z } from 'zod';
import { scanLocalProcesses } from './host-test-kit.ts';
import { useServiceFixture, type ServiceUnderTest } from './service-harness.ts';
import { callApi } from './api-call.ts';
import { openTerminal, runInTerminal } from './terminal-client.ts';

// Security review (issue 39), hosts: changes made at once are all kept; a host changed or removed leaves nothing its
// terminals started running on the VM.

const suite = useServiceFixture();
let dir: TempDir;
let sshConfig: string;
/** The ideas roots the test's hosts got, under the VM user's home: removed at the end. */
const roots: string[] = [];

beforeAll(async () => {
  dir = await createTempDir('hosts-changes');
  const hosts = { devbox: suite.sshd.users.bash };
  ({ configPath: sshConfig } = await writeSshClientConfig(suite.sshd, { dir: dir.path, hosts }));
});
afterAll(async () => {
  await dir.remove();
  const home = suite.sshd.users.bash.home;
  await Promise.all(roots.map((root) => rm(join(home, root), { recursive: true, force: true })));
});

const call = callApi;

const AddedHostsFileSchema = z.object({ hosts: z.array(z.object({ name: z.string() }).loose()) });

async function addedHostsOnDisk(catalyst: ServiceUnderTest): Promise<string[]> {
  const text = await readFile(join(catalyst.configDir.path, 'added-hosts.json'), 'utf8');
  return AddedHostsFileSchema.parse(JSON.parse(text))
    .hosts.map((host) => host.name)
    .sort();
}

function hostBody(name: string) {
  roots.push(`catalyst-e2e-${name}`);
  return { name, target: 'devbox', claudePath: suite.claudePath, ideasRoot: `~/catalyst-e2e-${name}` };
}

async function trustKey(catalyst: ServiceUnderTest, name: string): Promise<void> {
  const first = await call(catalyst, apiPath(API.checkHost, { params: { name } }), { method: 'POST' });
  const fingerprint = API.checkHost.response.parse(first.body).check.unknownHostKey?.fingerprint;
  const trusted = await call(catalyst, apiPath(API.trustHostKey, { params: { name } }), {
    method: 'POST',
    body: { fingerprint },
  });
  expect(API.trustHostKey.response.parse(trusted.body).check.isReady).toBe(true);
}

/** A terminal on an idea of the host, with a `nohup sleep` of a number of its own left in the background. */
async function terminalWithJob(catalyst: ServiceUnderTest, ideaId: string) {
  const { client } = await openTerminal(catalyst, ideaId);
  const seconds = String(4000 + randomBytes(2).readUInt16BE(0));
  await runInTerminal(client, `nohup sleep ${seconds} >/dev/null 2>&1 & true`, 'done-bg');
  const [tag] = catalyst.catalyst.services.terminals.runTagsOf(ideaId);
  if (tag === undefined) throw new Error('the terminal has no tag');
  const sleeps = async () =>
    (await scanLocalProcesses(tag)).filter((found) => found.cmdline === `sleep ${seconds}`);
  await waitUntil(async () => (await sleeps()).length === 1, {
    timeoutMs: 10_000,
    what: 'the background sleep to start',
  });
  return { client, sleeps };
}

describe('changes to hosts', () => {
  it('keeps every host added, changed and removed at once, on disk and after a restart', async () => {
    const env = { CATALYST_SSH_CONFIG_FILE: sshConfig };
    const catalyst = await suite.startAnother({ env });
    for (const name of ['first', 'gone']) {
      expect(
        (await call(catalyst, apiPath(API.addHost), { method: 'POST', body: hostBody(name) })).status,
      ).toBe(201);
    }
    const answers = await Promise.all([
      ...['one', 'two', 'three', 'four'].map((name) =>
        call(catalyst, apiPath(API.addHost), { method: 'POST', body: hostBody(name) }),
      ),
      call(catalyst, apiPath(API.updateHost, { params: { name: 'first' } }), {
        method: 'PATCH',
        body: { ideasRoot: '~/catalyst-e2e-first-moved' },
      }),
      call(catalyst, apiPath(API.deleteHost, { params: { name: 'gone' } }), { method: 'DELETE' }),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([201, 201, 201, 201, 200, 204]);
    expect(await addedHostsOnDisk(catalyst)).toEqual(['first', 'four', 'one', 'three', 'two']);
    // Each is the app's own, so each can be removed (none reads as the config file's).
    const removed = await call(catalyst, apiPath(API.deleteHost, { params: { name: 'one' } }), {
      method: 'DELETE',
    });
    expect(removed.status).toBe(204);
    await catalyst.stop();

    const again = await suite.startAnother({
      env,
      reuse: { configDir: catalyst.configDir, ideasRoot: catalyst.ideasRoot },
    });
    const hosts = API.hosts.response.parse((await call(again, apiPath(API.hosts))).body).hosts;
    const added = hosts.filter((host) => host.source === 'app');
    expect(added.map((host) => host.name).sort()).toEqual(['first', 'four', 'three', 'two']);
    const first = await call(again, apiPath(API.getHost, { params: { name: 'first' } }));
    expect(API.getHost.response.parse(first.body).host.ideasRoot).toBe('~/catalyst-e2e-first-moved');
  });

  it('ends the terminals of a host it reconnects or removes, and all they left running on the VM', async () => {
    const catalyst = await suite.startAnother({ env: { CATALYST_SSH_CONFIG_FILE: sshConfig } });
    const name = `term${randomBytes(3).toString('hex')}`;
    expect(
      (await call(catalyst, apiPath(API.addHost), { method: 'POST', body: hostBody(name) })).status,
    ).toBe(201);
    await trustKey(catalyst, name);
    const created = await call(catalyst, apiPath(API.createIdea), {
      method: 'POST',
      body: { title: 'Terminal on a host that changes', host: name },
    });
    const { idea } = API.createIdea.response.parse(created.body);

    const changed = await terminalWithJob(catalyst, idea.id);
    const update = await call(catalyst, apiPath(API.updateHost, { params: { name } }), {
      method: 'PATCH',
      body: { claudePath: `${suite.claudePath}-moved` },
    });
    expect(update.status).toBe(200);
    await changed.client.waitForFrame('ended');
    expect(await changed.sleeps()).toEqual([]);

    const removed = await terminalWithJob(catalyst, idea.id);
    const remove = await call(
      catalyst,
      apiPath(API.deleteHost, { params: { name }, query: { confirm: 'true' } }),
      { method: 'DELETE' },
    );
    expect(remove.status).toBe(204);
    await removed.client.waitForFrame('ended');
    expect(await removed.sleeps()).toEqual([]);
  });
});
