import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RelayEventSchema, type RelayEvent } from '@catalyst/protocol';
import { text, waitUntil } from '@catalyst/testkit';
import { z } from 'zod';
import { ORPHANED_RUN_MESSAGE } from '../../src/service/orphaned-runs.ts';
import { useFastService } from './fast-harness.ts';

// A Catalyst killed mid-build (SIGKILL, a crash) leaves the idea's files as they were at that moment: the run
// started, some of its events, no `run:ended`, meta.json `building`. (The VM's wrapper stops that claude when its
// lease lapses; the host suites prove that.) The next Catalyst ends that run before anyone reads the history.

const fixture = useFastService();

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
