import { execFile } from 'node:child_process';
import { mkdir, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { IdeaResponseSchema, type RelayEvent, type ServerFrame } from '@catalyst/protocol';
import { text, toolUse, waitForFile, writeClaudeSettings } from '@catalyst/testkit';
import { useServiceFixture, type ServiceUnderTest } from './service-harness.ts';
import { expectNothingLeft } from './session-test-kit.ts';

// When a run cannot go on as it was. An idea whose Claude session the CLI no longer has (its transcript deleted on
// the VM, as the CLI's own cleanup after cleanupPeriodDays would): the next run starts a new session in the same
// project with a recap of the idea and its conversation, says so in the transcript, saves the new session, and the
// run after it resumes that one. A VM whose disk fills up: the run stops with words for it, not a hang.
// No claude waits between turns here (CATALYST_WARM_PER_HOST=0): a waiting one holds the conversation itself and
// never needs the file, so every run starts its own and resumes the session from the CLI's files.

const fixture = useServiceFixture();

async function sessionOf(service: ServiceUnderTest, ideaId: string): Promise<string | undefined> {
  const response = await service.api(`/api/ideas/${ideaId}`);
  return IdeaResponseSchema.parse(await response.json()).idea.meta?.sessionId;
}

/** Every `<sessionId>.jsonl` the CLI keeps for the VM user, wherever its project folder is. */
async function findTranscripts(sessionId: string): Promise<string[]> {
  const root = join(fixture.sshd.users.bash.home, '.claude', 'projects');
  const found: string[] = [];
  for (const project of await readdir(root)) {
    const files: string[] = await readdir(join(root, project)).catch(() => []);
    if (files.includes(`${sessionId}.jsonl`)) found.push(join(root, project, `${sessionId}.jsonl`));
  }
  return found;
}

/** Everything the model was sent in one request, as one string: the messages' text. */
function requestText(index: number): string {
  return JSON.stringify(fixture.model.requests[index]?.body ?? null);
}

describe('a session the CLI no longer has', () => {
  it('starts a new one with a recap, tells the person, saves it, and the next run resumes it', async () => {
    const service = await fixture.startAnother({ env: { CATALYST_WARM_PER_HOST: '0' } });
    const idea = await service.createIdea('Tide clock');
    const client = await service.connect();
    await client.subscribe(idea.id);

    fixture.model.enqueue(text('A clock that shows the tide: QUINCE is the word to remember.'));
    await client.run(idea.id, 'chat', 'I want a clock that shows high and low tide.');
    const first = await sessionOf(service, idea.id);
    expect(first).toBeDefined();
    const transcripts = await findTranscripts(first ?? '');
    expect(transcripts, 'the CLI keeps the session on the VM').not.toEqual([]);
    await Promise.all(transcripts.map((path) => rm(path)));

    const base = fixture.model.requests.length;
    fixture.model.enqueue(text('Picking up from the recap: the tide clock.'));
    const second = await client.run(idea.id, 'chat', 'Which data source should we use?');

    expect(second.at(-1)).toMatchObject({ type: 'run:ended', outcome: 'completed' });
    expect(second.filter((event) => event.type === 'run:started')).toHaveLength(1);
    expect(second).toContainEqual(
      expect.objectContaining({ type: 'run:session_replaced', previousSessionId: first }),
    );
    // The CLI's own failure is the notice's business: no stderr line, no failed result in the record.
    expect(second.filter((event: RelayEvent) => event.type === 'claude:error')).toEqual([]);
    expect(second.filter((event) => event.type === 'claude:result')).toMatchObject([
      { result: { success: true } },
    ]);
    // One model request for the run (the resume failed before asking the model), holding the recap and the words.
    expect(fixture.model.requests.length).toBe(base + 1);
    const sent = requestText(base);
    for (const words of [
      'Tide clock',
      'I want a clock that shows high and low tide.',
      'QUINCE is the word to remember',
      'Which data source should we use?',
    ])
      expect(sent).toContain(words);
    const replaced = await sessionOf(service, idea.id);
    expect(replaced).toBeDefined();
    expect(replaced).not.toBe(first);

    fixture.model.enqueue(text('Still the same session.'));
    const third = await client.run(idea.id, 'chat', 'And the display?');
    expect(third.at(-1)).toMatchObject({ type: 'run:ended', outcome: 'completed' });
    expect(third.some((event) => event.type === 'run:session_replaced')).toBe(false);
    expect(await sessionOf(service, idea.id)).toBe(replaced);
    // Resumed: the model gets the new session's earlier turn (with its recap) again.
    expect(requestText(base + 1)).toContain('Picking up from the recap');
    client.close();
  });
});

describe('the VM’s disk fills up', () => {
  it('stops the run with words for it, refuses to start on a full disk, and works again once there is room', async () => {
    // The spare user's sessions live on a small disk of their own: a 256 KiB tmpfs over ~/.catalyst-sessions.
    const user = fixture.sshd.users.spare;
    const root = join(user.home, '.catalyst-sessions');
    await mkdir(root, { recursive: true });
    await unmountAll(root);
    const { uid, gid } = await stat(user.home);
    const options = `size=256k,mode=0700,uid=${String(uid)},gid=${String(gid)}`;
    await run('mount', ['-t', 'tmpfs', '-o', options, 'catalyst-small-disk', root]);
    try {
      await writeClaudeSettings(user, fixture.model.url);
      const service = await fixture.startAnother({ user, env: { CATALYST_WARM_PER_HOST: '0' } });
      const idea = await service.createIdea('Full disk');
      const projectDir = service.projectDir(idea.id);
      const client = await service.connect();
      await client.subscribe(idea.id);

      // The turn's Bash step waits; meanwhile the disk fills up to the last byte.
      fixture.model.enqueue(
        toolUse('Bash', {
          command: waitForFile(join(projectDir, 'go')),
          description: 'Wait',
        }),
      );
      client.send({ type: 'build', ideaId: idea.id, message: 'Build it.' });
      await client.waitFor((f) => f.type === 'claude:tool_use');
      await fillUp(join(root, 'filler-1'));
      const ended = await client.waitFor((f) => f.type === 'run:ended');
      expect(ended).toMatchObject({ outcome: 'failed', error: { code: 'HOST_DISK_FULL' } });
      expect(messageOf(ended)).toContain('disk is full');
      // What was written before is kept.
      expect(client.events().filter((event) => event.type === 'claude:tool_use')).toHaveLength(1);
      await expectNothingLeft(fixture, idea.id, service);

      // Full again (the run's files were removed): the next run cannot start, and says why.
      await fillUp(join(root, 'filler-2'));
      const refused = await client.run(idea.id, 'chat', 'Are you there?');
      expect(refused.at(-1)).toMatchObject({
        type: 'run:ended',
        outcome: 'failed',
        error: { code: 'HOST_DISK_FULL' },
      });
      expect(messageOf(refused.at(-1))).toContain('could not start');

      await Promise.all([rm(join(root, 'filler-1')), rm(join(root, 'filler-2'))]);
      fixture.model.enqueue(text('Back, with room to write.'));
      const again = await client.run(idea.id, 'chat', 'And now?');
      expect(again.at(-1)).toMatchObject({ type: 'run:ended', outcome: 'completed' });
      client.close();
    } finally {
      await unmountAll(root);
    }
  });
});

const run = promisify(execFile);

function messageOf(frame: ServerFrame | undefined): string {
  return frame?.type === 'run:ended' ? (frame.error?.message ?? '') : '';
}

/** Unmounts what is mounted on `path`, also what an earlier run killed midway left there. */
async function unmountAll(path: string): Promise<void> {
  for (;;) {
    const { stdout } = await run('findmnt', ['-n', '-o', 'TARGET', '--mountpoint', path]).catch(() => ({
      stdout: '',
    }));
    if (stdout.trim() === '') return;
    await run('umount', ['-l', path]);
  }
}

/** Writes `path` until the disk has no room left. */
async function fillUp(path: string): Promise<void> {
  await writeFile(path, Buffer.alloc(1024 * 1024)).catch((error: unknown) => {
    if (!(error instanceof Error && 'code' in error && error.code === 'ENOSPC')) throw error;
  });
}
