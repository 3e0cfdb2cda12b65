import { describe, expect, it } from 'vitest';
import { RelayEventSchema } from '@catalyst/protocol';
import { text, waitUntil } from '@catalyst/testkit';
import { z } from 'zod';
import { ORPHANED_RUN_MESSAGE } from '../../src/runs/orphaned-runs.ts';
import { useFastService } from './fast-harness.ts';
import { leaveKilledBuild as leaveKilledBuildOn } from '../orphaned-run-kit.ts';

// A Catalyst killed mid-build (SIGKILL, a crash) leaves the idea's files as they were at that moment: the run
// started, some of its events, no `run:ended`, meta.json `building`. (The VM's wrapper stops that claude when its
// lease lapses; the host suites prove that.) The next Catalyst ends that run before anyone reads the history.

const fixture = useFastService();

const leaveKilledBuild = (title: string) => leaveKilledBuildOn(fixture, title);

describe('a run an earlier Catalyst left without an ending', () => {
  it('ends as connection_lost with the reason, the idea is failed, and the next run works', async () => {
    const { ideaId, lastSeq, left } = await leaveKilledBuild('Killed mid-build');
    const idea = { id: ideaId };
    const runId = 'run-killed';
    await fixture.restartService();
    const after = await fixture.service.connect();
    await after.subscribe(idea.id, lastSeq);
    const events = after.events();
    expect(events.slice(0, 3)).toEqual(left);
    expect(events.slice(3)).toMatchObject([
      { type: 'idea:status', runId, status: 'failed' },
      {
        type: 'run:ended',
        runId,
        outcome: 'connection_lost',
        error: { code: 'CONNECTION_LOST', message: ORPHANED_RUN_MESSAGE },
      },
    ]);
    const view = await (await fixture.service.api(`/api/ideas/${idea.id}`)).json();
    expect(view).toMatchObject({ idea: { running: false, meta: { status: 'failed' } } });

    // Once, not on every open: a second restart adds nothing; and the idea takes a new run.
    after.close();
    await fixture.service.stop();
    await fixture.restartService();
    const again = await fixture.service.connect();
    await again.subscribe(idea.id, lastSeq + 3);
    expect(again.events().map((event) => event.type)).toEqual(['idea:status', 'run:ended']);
    fixture.model.enqueue(text('Back again.'));
    const run = await again.run(idea.id, 'chat', 'Still there?');
    expect(run.at(-1)).toMatchObject({ type: 'run:ended', outcome: 'completed' });
    again.close();
  });

  it('is ended before a run that comes first after the restart reads the status', async () => {
    const { ideaId } = await leaveKilledBuild('Chat first');
    await fixture.restartService();
    const client = await fixture.service.connect();
    // The chat frame and no subscribe: the run's launch is what opens the history.
    fixture.model.enqueue(text('Here again.'));
    client.send({ type: 'chat', ideaId, message: 'Hello after the crash.' });
    const history = async () =>
      z
        .object({ events: z.array(RelayEventSchema) })
        .parse(await (await fixture.service.api(`/api/ideas/${ideaId}/events`)).json()).events;
    await waitUntil(
      async () =>
        (await history()).filter((e) => e.type === 'run:ended' && e.runId !== 'run-killed').length === 2,
      { timeoutMs: 30_000, what: 'the chat after the restart to end' },
    );
    const ends = (await history()).flatMap((e) => (e.type === 'run:ended' ? [e] : []));
    expect(ends.map((e) => [e.runId === 'run-killed', e.outcome])).toEqual([
      [false, 'completed'],
      [true, 'connection_lost'],
      [false, 'completed'],
    ]);
    const view = await (await fixture.service.api(`/api/ideas/${ideaId}`)).json();
    expect(view).toMatchObject({ idea: { meta: { status: 'failed' } } });
    client.close();
  });
});
