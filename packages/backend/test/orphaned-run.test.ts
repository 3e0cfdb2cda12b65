import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RelayEventSchema, type RelayEvent } from '@catalyst/protocol';
import { text, type ScriptedModel, type SshdHandle } from '@catalyst/testkit';
import { ORPHANED_RUN_MESSAGE } from '../src/service/orphaned-runs.ts';
import {
  startService,
  startServiceFixture,
  stopServiceFixture,
  type ServiceUnderTest,
} from './service-harness.ts';

// A Catalyst killed mid-build (SIGKILL, a crash) leaves the idea's files as they were at that moment: the run
// started, some of its events, no `run:ended`, meta.json `building`. (The VM's wrapper stops that claude when its
// lease lapses; the host suites prove that.) The next Catalyst ends that run before anyone reads the history.

let sshd: SshdHandle;
let model: ScriptedModel;
let claudePath: string;
let service: ServiceUnderTest;

beforeAll(async () => {
  ({ sshd, model, claudePath, service } = await startServiceFixture());
});

afterAll(() => stopServiceFixture({ sshd, model, claudePath, service }));

describe('a run an earlier Catalyst left without an ending', () => {
  it('ends as connection_lost with the reason, the idea is failed, and the next run works', async () => {
    const idea = await service.createIdea('Killed mid-build');
    const client = await service.connect();
    await client.subscribe(idea.id);
    model.enqueue(text('Talked it through.'));
    await client.run(idea.id, 'chat', 'Let us talk.');
    client.close();
    await service.stop();

    // What a SIGKILL during the next build leaves on the VM.
    const folder = join(service.ideasRoot, idea.id);
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

    service = await startService({
      sshd,
      user: sshd.users.bash,
      claudePath,
      reuse: { configDir: service.configDir, ideasRoot: service.ideasRoot },
    });
    const after = await service.connect();
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
    const view = await (await service.api(`/api/ideas/${idea.id}`)).json();
    expect(view).toMatchObject({ idea: { running: false, meta: { status: 'failed' } } });

    // Once, not on every open: a second restart adds nothing; and the idea takes a new run.
    after.close();
    await service.stop();
    service = await startService({
      sshd,
      user: sshd.users.bash,
      claudePath,
      reuse: { configDir: service.configDir, ideasRoot: service.ideasRoot },
    });
    const again = await service.connect();
    await again.subscribe(idea.id, lastSeq + 3);
    expect(again.events().map((event) => event.type)).toEqual(['idea:status', 'run:ended']);
    model.enqueue(text('Back again.'));
    const run = await again.run(idea.id, 'chat', 'Still there?');
    expect(run.at(-1)).toMatchObject({ type: 'run:ended', outcome: 'completed' });
    again.close();
  });
});
