import { existsSync } from 'node:fs';
import { readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { IdeaListResponseSchema } from '@catalyst/protocol';
import { stall, text, toolUse } from '@catalyst/testkit';
import { useServiceFixture, type ServiceUnderTest } from './service-harness.ts';

// Issue 16, item 8: deleting an idea over SSH as the VM's (non-root) test user, so permissions really apply. The
// test process runs as root; every file in these tests is made by that user's claude or kept owned by them.

const fixture = useServiceFixture();
const LOCK_COMMAND = 'mkdir -p out/locked && echo data > out/locked/file && chmod 555 out/locked';

async function listedIds(service: ServiceUnderTest) {
  const body = IdeaListResponseSchema.parse(await (await service.api('/api/ideas')).json());
  return body.ideas;
}

/** A build in which the VM user's claude makes a read-only directory with a file in it, as builds do. */
async function buildLockedIdea(title: string): Promise<{ id: string; locked: string }> {
  const idea = await fixture.service.createIdea(title);
  const client = await fixture.service.connect();
  await client.subscribe(idea.id);
  fixture.model.enqueue(
    toolUse('Bash', { command: LOCK_COMMAND, description: 'Lock a folder' }),
    text('Locked.'),
  );
  const events = await client.run(idea.id, 'build', 'Make a read-only folder.');
  client.close();
  expect(events.at(-1)).toMatchObject({ type: 'run:ended', outcome: 'completed' });
  const locked = join(fixture.service.projectDir(idea.id), 'out', 'locked');
  expect((await stat(locked)).mode & 0o777).toBe(0o555);
  const userUid = (await stat(fixture.sshd.users.bash.home)).uid;
  expect(userUid).not.toBe(0);
  expect((await stat(join(locked, 'file'))).uid).toBe(userUid);
  return { id: idea.id, locked };
}

describe('deleting an idea', () => {
  it('deletes an idea whose build left a read-only directory with a file inside: nothing remains', async () => {
    const { id } = await buildLockedIdea('Read-only output');
    const response = await fixture.service.api(`/api/ideas/${id}`, { method: 'DELETE' });

    expect(response.status).toBe(204);
    expect((await listedIds(fixture.service)).map((idea) => idea.id)).not.toContain(id);
    expect(existsSync(join(fixture.service.ideasRoot, id))).toBe(false);
    expect(await readdir(join(fixture.service.ideasRoot, '.trash'))).toEqual([]);
    const again = await fixture.service.api(`/api/ideas/${id}`, { method: 'DELETE' });
    expect(again.status).toBe(404);
  });

  it('lists a folder with a corrupt or missing meta.json as broken, and deletes it', async () => {
    const corrupt = await fixture.service.createIdea('Corrupt meta');
    const missing = await fixture.service.createIdea('Missing meta');
    // Overwritten in place, so the file stays the VM user's.
    await writeFile(join(fixture.service.ideasRoot, corrupt.id, 'meta.json'), '{"schemaVersion": tru');
    await rm(join(fixture.service.ideasRoot, missing.id, 'meta.json'));

    const listed = await listedIds(fixture.service);
    for (const id of [corrupt.id, missing.id]) {
      expect(listed.find((idea) => idea.id === id)).toMatchObject({ available: false, broken: true });
      const response = await fixture.service.api(`/api/ideas/${id}`, { method: 'DELETE' });
      expect(response.status).toBe(204);
      expect(existsSync(join(fixture.service.ideasRoot, id))).toBe(false);
    }
    const after = (await listedIds(fixture.service)).map((idea) => idea.id);
    expect(after).not.toContain(corrupt.id);
    expect(after).not.toContain(missing.id);
  });

  it('refuses to delete an idea during its run with RUN_IN_PROGRESS, and keeps it', async () => {
    const idea = await fixture.service.createIdea('Busy delete');
    const client = await fixture.service.connect();
    await client.subscribe(idea.id);
    fixture.model.enqueue(stall('Thinking'));
    const from = client.frames.length;
    const stalled = fixture.model.waitForRequest(fixture.model.requests.length);
    client.send({ type: 'chat', ideaId: idea.id, message: 'Think.' });
    const started = await client.waitFor((f) => f.type === 'run:started', from);
    await stalled;

    const response = await fixture.service.api(`/api/ideas/${idea.id}`, { method: 'DELETE' });
    expect(response.status).toBe(409);
    expect(await response.json()).toMatchObject({ error: { code: 'RUN_IN_PROGRESS' } });
    client.send({ type: 'cancel', ideaId: idea.id });
    await client.untilEnded(started);
    expect(existsSync(join(fixture.service.ideasRoot, idea.id, 'meta.json'))).toBe(true);
    client.close();
  });

  it('empties at start-up what a delete left in the trash', async () => {
    const { id } = await buildLockedIdea('Left in the trash');
    // What a delete that stopped after its rename leaves (the backend killed, or the removal refused).
    const tombstone = join(fixture.service.ideasRoot, '.trash', `${id}-leftover`);
    await rename(join(fixture.service.ideasRoot, id), tombstone);
    await fixture.service.stop();
    const restarted = await fixture.restartService();
    await restarted.catalyst.swept;

    expect(existsSync(tombstone)).toBe(false);
    expect((await listedIds(restarted)).map((idea) => idea.id)).not.toContain(id);
  });
});
