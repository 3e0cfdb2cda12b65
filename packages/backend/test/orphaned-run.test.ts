import { appendFile, chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RelayEventSchema, type RelayEvent } from '@catalyst/protocol';
import { text } from '@catalyst/testkit';
import { useServiceFixture } from './service-harness.ts';

// A Catalyst killed mid-build (SIGKILL, a crash) leaves the idea's files as they were at that moment: the run
// started, some of its events, no `run:ended`, meta.json `building`. (The VM's wrapper stops that claude when its
// lease lapses; the host suites prove that.) The next Catalyst ends that run before anyone reads the history.

const fixture = useServiceFixture();

/** A chatted idea, then the files a SIGKILL during its build leaves on the VM; Catalyst is stopped. */
async function leaveKilledBuild(
  title: string,
): Promise<{ ideaId: string; lastSeq: number; left: RelayEvent[] }> {
  const idea = await fixture.service.createIdea(title);
  const client = await fixture.service.connect();
  await client.subscribe(idea.id);
  fixture.model.enqueue(text('Talked it through.'));
  await client.run(idea.id, 'chat', 'Let us talk.');
  client.close();
  await fixture.service.stop();

  // What a SIGKILL during the next build leaves on the VM.
  const folder = join(fixture.service.ideasRoot, idea.id);
  const eventsPath = join(folder, 'events.ndjson');
  const lines = (await readFile(eventsPath, 'utf8')).trim().split('\n');
  const lastSeq = RelayEventSchema.parse(JSON.parse(lines.at(-1) ?? '')).seq;
  const runId = 'run-killed';
  const ts = new Date().toISOString();
  const left: RelayEvent[] = [
    { type: 'idea:status', ideaId: idea.id, runId, seq: lastSeq + 1, ts, status: 'building' },
    {
      type: 'run:started',
      ideaId: idea.id,
      runId,
      seq: lastSeq + 2,
      ts,
      mode: 'build',
      message: 'Build it.',
    },
    {
      type: 'claude:text',
      ideaId: idea.id,
      runId,
      seq: lastSeq + 3,
      ts,
      text: 'Starting…',
      messageId: 'msg-killed',
      parentToolUseId: null,
    },
  ];
  await appendFile(eventsPath, left.map((event) => `${JSON.stringify(event)}\n`).join(''));
  const metaPath = join(folder, 'meta.json');
  const meta = JSON.parse(await readFile(metaPath, 'utf8')) as Record<string, unknown>;
  await writeFile(metaPath, JSON.stringify({ ...meta, status: 'building' }));

  return { ideaId: idea.id, lastSeq, left };
}

describe('a run an earlier Catalyst left without an ending', () => {
  it('that could not be ended when the history opened is ended by the next launch, or the launch is refused', async () => {
    const { ideaId, lastSeq } = await leaveKilledBuild('Read-only for a while');
    // The VM user cannot write the idea's folder: meta.json cannot be replaced, so the run cannot be ended yet.
    const folder = join(fixture.service.ideasRoot, ideaId);
    await chmod(folder, 0o555);
    try {
      await fixture.restartService();
      const client = await fixture.service.connect();
      await client.subscribe(ideaId, lastSeq);
      expect(client.events().map((event) => event.type)).toEqual([
        'idea:status',
        'run:started',
        'claude:text',
      ]);

      // Still not writable: the chat is refused, it does not run on a status that is wrong.
      const before = client.frames.length;
      client.send({ type: 'chat', ideaId, message: 'Too early.' });
      await client.waitFor((frame) => frame.type === 'error', before);
      expect(client.frames.slice(before).some((frame) => frame.type === 'run:started')).toBe(false);

      // Writable again: the next launch ends the old run first, then runs.
      await chmod(folder, 0o755);
      fixture.model.enqueue(text('Back.'));
      const run = await client.run(ideaId, 'chat', 'Now?');
      expect(run.at(-1)).toMatchObject({ type: 'run:ended', outcome: 'completed' });
      const afterKill = client.events().slice(3);
      expect(afterKill.slice(0, 2)).toMatchObject([
        { type: 'idea:status', runId: 'run-killed', status: 'failed' },
        { type: 'run:ended', runId: 'run-killed', outcome: 'connection_lost' },
      ]);
      expect(afterKill[2]).toMatchObject({ type: 'run:started', message: 'Now?' });
      client.close();
    } finally {
      await chmod(folder, 0o755);
    }
  });
});
