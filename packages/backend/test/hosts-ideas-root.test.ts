import { randomBytes } from 'node:crypto';
import { chown, lchown, mkdir, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, apiPath } from '@catalyst/protocol';
import { createTempDir, writeSshClientConfig, type TempDir } from '@catalyst/testkit';
import { useServiceFixture } from './service-harness.ts';
import { callApi } from './api-call.ts';

// Issue 39, item 3: an ideas root is a folder of Catalyst's own. A home, `/` or `/tmp` is refused by the API; a
// folder that holds someone's files is never used, made private nor has its .trash emptied, even after a restart.

const suite = useServiceFixture();
let dir: TempDir;
let sshConfig: string;
const foreign = `catalyst-e2e-foreign-${randomBytes(4).toString('hex')}`;

beforeAll(async () => {
  dir = await createTempDir('hosts-ideas-root');
  const hosts = { devbox: suite.sshd.users.bash };
  ({ configPath: sshConfig } = await writeSshClientConfig(suite.sshd, { dir: dir.path, hosts }));
});
afterAll(async () => {
  await dir.remove();
  for (const name of [foreign, `${foreign}-ok`, `${foreign}-older`, `${foreign}-link`])
    await rm(join(suite.sshd.users.bash.home, name), { recursive: true, force: true });
});

const call = callApi;

/** A folder of the VM user's with their notes in it, readable by all, and a .trash of their own. */
async function makeForeignFolder(): Promise<string> {
  const home = suite.sshd.users.bash.home;
  const { uid, gid } = await stat(home);
  const path = join(home, foreign);
  await mkdir(join(path, '.trash'), { recursive: true, mode: 0o755 });
  await writeFile(join(path, 'notes.txt'), 'mine\n');
  await writeFile(join(path, '.trash', 'keep.txt'), 'still wanted\n');
  for (const owned of [path, join(path, '.trash'), join(path, 'notes.txt'), join(path, '.trash', 'keep.txt')])
    await chown(owned, uid, gid);
  return path;
}

describe('the ideas root of a host', () => {
  it('refuses a home, / or /tmp as ideas folder, saying why', async () => {
    const catalyst = await suite.startAnother({ env: { CATALYST_SSH_CONFIG_FILE: sshConfig } });
    for (const ideasRoot of ['~', '~/', '/', '/tmp']) {
      const added = await call(catalyst, apiPath(API.addHost), {
        method: 'POST',
        body: { name: 'homebox', target: 'devbox', ideasRoot },
      });
      expect(added.status, ideasRoot).toBe(400);
      expect(added.body, ideasRoot).toMatchObject({ error: { code: 'INVALID_ARGUMENT' } });
      expect(JSON.stringify(added.body), ideasRoot).toContain('give it a folder of its own');
    }
    const ok = await call(catalyst, apiPath(API.addHost), {
      method: 'POST',
      body: { name: 'homebox', target: 'devbox', ideasRoot: `~/${foreign}-ok` },
    });
    expect(ok.status).toBe(201);
    const moved = await call(catalyst, apiPath(API.updateHost, { params: { name: 'homebox' } }), {
      method: 'PATCH',
      body: { ideasRoot: '~' },
    });
    expect(moved.status).toBe(400);
  });

  it('neither uses, makes private nor empties the .trash of a folder that holds someone’s files', async () => {
    const path = await makeForeignFolder();
    const env = { CATALYST_SSH_CONFIG_FILE: sshConfig };
    const catalyst = await suite.startAnother({ env });
    const body = {
      name: 'foreign',
      target: 'devbox',
      claudePath: suite.claudePath,
      ideasRoot: `~/${foreign}`,
    };
    expect((await call(catalyst, apiPath(API.addHost), { method: 'POST', body })).status).toBe(201);
    const first = await call(catalyst, apiPath(API.checkHost, { params: { name: 'foreign' } }), {
      method: 'POST',
    });
    const fingerprint = API.checkHost.response.parse(first.body).check.unknownHostKey?.fingerprint;
    await call(catalyst, apiPath(API.trustHostKey, { params: { name: 'foreign' } }), {
      method: 'POST',
      body: { fingerprint },
    });
    const created = await call(catalyst, apiPath(API.createIdea), {
      method: 'POST',
      body: { title: 'In someone’s folder', host: 'foreign' },
    });
    // The host is unusable until its root is changed: every idea call on it says why.
    expect(created.body).toMatchObject({ error: { code: 'HOST_UNAVAILABLE' } });
    expect(JSON.stringify(created.body)).toContain('holds notes.txt, which Catalyst did not put there');

    // A restart sweeps every host: this one's folder is left as it was.
    await catalyst.stop();
    const again = await suite.startAnother({
      env,
      reuse: { configDir: catalyst.configDir, ideasRoot: catalyst.ideasRoot },
    });
    await again.catalyst.swept;
    expect((await stat(path)).mode & 0o777).toBe(0o755);
    expect(await readdir(join(path, '.trash'))).toEqual(['keep.txt']);
    expect((await readdir(path)).sort()).toEqual(['.trash', 'notes.txt']);
  });

  it('takes up an older Catalyst’s folder, reached by a symlink, whose idea lost its meta.json', async () => {
    const home = suite.sshd.users.bash.home;
    const { uid, gid } = await stat(home);
    const real = join(home, `${foreign}-older`);
    const broken = 'idea-0123456789abcdef';
    await mkdir(join(real, broken, 'project'), { recursive: true });
    await mkdir(join(real, '.trash'));
    await symlink(real, join(home, `${foreign}-link`));
    for (const owned of [real, join(real, broken), join(real, broken, 'project'), join(real, '.trash')])
      await chown(owned, uid, gid);
    await lchown(join(home, `${foreign}-link`), uid, gid);
    const catalyst = await suite.startAnother({ env: { CATALYST_SSH_CONFIG_FILE: sshConfig } });
    const body = {
      name: 'older',
      target: 'devbox',
      claudePath: suite.claudePath,
      ideasRoot: `~/${foreign}-link`,
    };
    expect((await call(catalyst, apiPath(API.addHost), { method: 'POST', body })).status).toBe(201);
    const first = await call(catalyst, apiPath(API.checkHost, { params: { name: 'older' } }), {
      method: 'POST',
    });
    const fingerprint = API.checkHost.response.parse(first.body).check.unknownHostKey?.fingerprint;
    await call(catalyst, apiPath(API.trustHostKey, { params: { name: 'older' } }), {
      method: 'POST',
      body: { fingerprint },
    });
    const created = await call(catalyst, apiPath(API.createIdea), {
      method: 'POST',
      body: { title: 'Beside a broken idea', host: 'older' },
    });
    expect(created.status).toBe(201);
    const listed = JSON.stringify((await call(catalyst, apiPath(API.listIdeas))).body);
    expect(listed).toContain(broken);
    expect(listed).toContain('Beside a broken idea');
    expect(await readdir(real)).toContain('.catalyst-ideas');
  });
});
