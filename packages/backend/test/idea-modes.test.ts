import { randomBytes } from 'node:crypto';
import { chmod, lstat, mkdir, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTempDir, text } from '@catalyst/testkit';
import type { Host, HostFiles } from '../src/host/host.ts';
import { createLocalHost } from '../src/host/local-host.ts';
import { createSshHost } from '../src/host/ssh/ssh-host.ts';
import { useServiceFixture } from './service-harness.ts';
import { sshHostConfig } from './ssh-test-kit.ts';

// An idea's data on a VM other people log in to (issue 25, finding 3): the ideas root and each idea folder are
// 0700, the files Catalyst writes there 0600, from their creation on, and an older Catalyst's looser ones are
// made so at start-up. project/ keeps the modes Claude's tools give it.

const fixture = useServiceFixture();

async function modeOf(path: string): Promise<string> {
  return ((await lstat(path)).mode & 0o7777).toString(8);
}

/** The mode of every entry directly in an idea folder, by name. */
async function modesIn(dir: string): Promise<Record<string, string>> {
  const names = await readdir(dir);
  const modes = await Promise.all(names.map(async (name) => [name, await modeOf(join(dir, name))] as const));
  return Object.fromEntries(modes);
}

/** A new idea whose event history a chat has written: its id and folder on the VM. */
async function ideaWithHistory(title: string): Promise<{ id: string; dir: string }> {
  const { service, model } = fixture;
  const idea = await service.createIdea(title);
  const client = await service.connect();
  await client.subscribe(idea.id);
  model.enqueue(text('Hello.'));
  await client.run(idea.id, 'chat', 'Hi');
  client.close();
  return { id: idea.id, dir: join(service.ideasRoot, idea.id) };
}

describe('the modes HostFiles gives what it creates, on both adapters', () => {
  const adapters: [string, () => Host, () => string][] = [
    ['local', () => createLocalHost(), () => '/tmp'],
    ['ssh', () => createSshHost(sshHostConfig(fixture.sshd, 'bash')), () => fixture.sshd.users.bash.home],
  ];
  for (const [name, createHost, parent] of adapters) {
    it(name, async () => {
      const host = createHost();
      const files: HostFiles = host;
      const scratch = join(parent(), `catalyst-modes-${randomBytes(4).toString('hex')}`);
      const at = (path: string) => join(scratch, path);
      try {
        await files.mkdirp(at('a/b'), { mode: 0o700 });
        await chmod(at('a'), 0o750);
        await files.mkdirp(at('a/b/c'), { mode: 0o700 });
        await files.writeFileAtomic(at('new'), 'x', { mode: 0o600 });
        await files.writeFileAtomic(at('loose'), 'x');
        await chmod(at('loose'), 0o644);
        await files.writeFileAtomic(at('loose'), 'y', { mode: 0o600 });
        await files.writeFileAtomic(at('kept'), 'x');
        await chmod(at('kept'), 0o640);
        await files.writeFileAtomic(at('kept'), 'y');
        await files.appendFile(at('log'), 'x', { mode: 0o600 });
        await files.appendFile(at('log'), 'y', { mode: 0o644 });
        expect(await modeOf(scratch)).toBe('700');
        expect(await modesIn(scratch)).toEqual({
          a: '750',
          new: '600',
          loose: '600',
          kept: '640',
          log: '600',
        });
        expect([await modeOf(at('a/b')), await modeOf(at('a/b/c'))]).toEqual(['700', '700']);
      } finally {
        await host.close();
        await rm(scratch, { recursive: true, force: true });
      }
    });
  }
});

describe('idea folders on a shared VM', () => {
  it('makes a new idea private from the start: another user of the VM reads nothing', async () => {
    const { service, sshd } = fixture;
    const { id, dir } = await ideaWithHistory('Private');
    const other = createSshHost(sshHostConfig(sshd, 'dash'));
    try {
      await expect(other.readFile(join(dir, 'meta.json'))).rejects.toMatchObject({
        code: 'PERMISSION_DENIED',
      });
      await expect(other.list(service.ideasRoot)).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    } finally {
      await other.close();
    }
    expect(await modeOf(service.ideasRoot)).toBe('700');
    expect(await modeOf(dir)).toBe('700');
    const modes = await modesIn(dir);
    expect(modes).toMatchObject({ 'meta.json': '600', 'events.ndjson': '600', 'events.seq': '600' });
    for (const [name, mode] of Object.entries(modes)) {
      if (name !== 'project') expect(mode, name).toBe('600');
    }
    // project/ gets the host's usual mode: Claude's, not Catalyst's, to choose.
    expect(modes['project']).toBe('755');

    expect((await service.api(`/api/ideas/${id}`)).status).toBe(200);
  });

  it("makes an older Catalyst's ideas private at start-up, and leaves project/ and symlinks alone", async () => {
    const { dir } = await ideaWithHistory('Older');
    const { ideasRoot } = fixture.service;
    const project = join(dir, 'project');
    await writeFile(join(project, 'index.html'), '<p>mine</p>\n');
    await mkdir(join(project, 'public'));
    // What an older Catalyst left: everything as the umask made it.
    const outside = await createTempDir('modes-outside');
    try {
      await writeFile(join(outside.path, 'target'), '');
      await chmod(join(outside.path, 'target'), 0o644);
      await symlink(join(outside.path, 'target'), join(dir, 'link'));
      for (const path of [ideasRoot, dir, project, join(project, 'public')]) await chmod(path, 0o755);
      for (const name of ['meta.json', 'events.ndjson', 'events.seq']) await chmod(join(dir, name), 0o644);
      await chmod(join(project, 'index.html'), 0o644);

      await fixture.service.stop();
      const service = await fixture.restartService();
      await service.catalyst.swept;

      expect(await modeOf(ideasRoot)).toBe('700');
      expect(await modeOf(dir)).toBe('700');
      const modes = await modesIn(dir);
      expect(modes).toMatchObject({ 'meta.json': '600', 'events.ndjson': '600', 'events.seq': '600' });
      expect(await modeOf(project)).toBe('755');
      expect(await modesIn(project)).toEqual({ 'index.html': '644', public: '755' });
      expect(await modeOf(join(outside.path, 'target'))).toBe('644');
    } finally {
      await outside.remove();
    }
  });
});

describe('the start-up sweep', () => {
  // A stop right after a start closes the hosts under the sweep and the autopilots' look-up: that is Catalyst
  // stopping, not a host failing, and is not logged as one (it was: two warnings with a stack each).
  it('logs no failure when Catalyst stops while it runs', async () => {
    await ideaWithHistory('Swept while stopping');
    await fixture.service.stop();
    const quick = await fixture.restartService();
    await quick.stop();
    await quick.catalyst.swept;
    const failures = quick
      .logText()
      .split('\n')
      .filter((line) => /"level":(40|50)/.test(line));
    expect(failures).toEqual([]);
    await fixture.restartService();
  });
});
