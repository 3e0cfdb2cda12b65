import { chmod } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { text } from '@catalyst/testkit';
import { useServiceFixture } from './service-harness.ts';
import { leaveKilledBuild as leaveKilledBuildOn } from './orphaned-run-kit.ts';

// A Catalyst killed mid-build (SIGKILL, a crash) leaves the idea's files as they were at that moment: the run
// started, some of its events, no `run:ended`, meta.json `building`. (The VM's wrapper stops that claude when its
// lease lapses; the host suites prove that.) The next Catalyst ends that run before anyone reads the history.

const fixture = useServiceFixture();

const leaveKilledBuild = (title: string) => leaveKilledBuildOn(fixture, title);

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
