import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { longRunningCommand, stall, text, toolUse, waitUntil } from '@catalyst/testkit';
import { useFastService } from './fast-harness.ts';
import { claudeJobsOf, expectNothingLeft } from './fast-kit.ts';

// The whole service on the in-process host: REST and WebSocket as a browser uses them (the real CLI's runs over
// sshd in ../service.test.ts).

const fixture = useFastService();

describe('the Catalyst service on the in-process host', () => {
  it('refuses a second run on a busy idea with RUN_IN_PROGRESS over REST; the composer’s frame queues it', async () => {
    const idea = await fixture.service.createIdea('Busy');
    const client = await fixture.service.connect();
    await client.subscribe(idea.id);
    fixture.model.enqueue(stall('Thinking about'));
    const from = client.frames.length;
    const stalled = fixture.model.waitForRequest(fixture.model.requests.length);
    client.send({ type: 'chat', ideaId: idea.id, message: 'First.' });
    const started = await client.waitFor((f) => f.type === 'run:started', from);
    await stalled;
    const refused = await fixture.service.api(`/api/ideas/${idea.id}/runs`, {
      method: 'POST',
      body: JSON.stringify({ mode: 'chat', message: 'Second.' }),
    });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ error: { code: 'RUN_IN_PROGRESS' } });
    // From the page, the same message waits in the idea's queue instead (issue 30); cleared, it is never sent.
    client.send({ type: 'chat', ideaId: idea.id, message: 'Second.', requestId: 'second' });
    expect(await client.waitFor((f) => f.type === 'autopilot:started', from)).toMatchObject({
      kind: 'queue',
      steps: [{ message: 'Second.' }],
    });
    expect((await fixture.service.api(`/api/ideas/${idea.id}/queue`, { method: 'DELETE' })).status).toBe(200);
    client.send({ type: 'cancel', ideaId: idea.id });
    expect((await client.untilEnded(started)).at(-1)).toMatchObject({ outcome: 'cancelled' });
    client.close();
  });

  it('times a silent claude out with the real figure in the message', async () => {
    // 5 s: the timer runs from the start, and a cold CLI on a busy 2-core machine takes some of that to ask.
    const quick = await fixture.startAnother({ env: { CLAUDE_TIMEOUT_MS: '5000' } });
    const idea = await quick.createIdea('Silent model');
    const client = await quick.connect();
    await client.subscribe(idea.id);
    fixture.model.enqueue(stall('Part one'));
    const events = await client.run(idea.id, 'chat', 'Go.');

    expect(events.at(-1)).toMatchObject({
      type: 'run:ended',
      outcome: 'timed_out',
      error: { code: 'RUN_TIMED_OUT', message: 'Claude process timed out (no output for 5 seconds)' },
    });
    client.close();
  });

  it('replays exactly what a client missed, also after the backend restarts', async () => {
    const idea = await fixture.service.createIdea('Replay');
    const first = await fixture.service.connect();
    await first.subscribe(idea.id);
    fixture.model.enqueue(text('One.'));
    await first.run(idea.id, 'chat', 'First message.');
    const all = first.events().filter((e) => e.ideaId === idea.id);
    const cut = all[2]?.seq ?? 0;
    first.close();

    const second = await fixture.service.connect();
    await second.subscribe(idea.id, cut);
    expect(second.events().map((e) => e.seq)).toEqual(all.filter((e) => e.seq > cut).map((e) => e.seq));
    second.close();

    // A restart flushes every history as Catalyst stops; this Catalyst goes on, so the next one starts once what it
    // showed is written (events are shown at once and written in batches, a few milliseconds later).
    const written = join(fixture.service.ideasRoot, idea.id, 'events.ndjson');
    const newest = all.at(-1)?.seq ?? 0;
    const onFile = () => readFile(written, 'utf8').catch(() => '');
    await waitUntil(async () => (await onFile()).includes(`"seq":${String(newest)},`), {
      timeoutMs: 5_000,
      what: 'the run written to the history file',
    });
    const restarted = await fixture.startAnother({
      reuse: { configDir: fixture.service.configDir, ideasRoot: fixture.service.ideasRoot },
    });
    const third = await restarted.connect();
    await third.subscribe(idea.id, cut);
    expect(third.events()).toEqual(all.filter((e) => e.seq > cut));
    third.close();
  });

  it('answers bad frames with typed errors and keeps serving the same connection', async () => {
    const client = await fixture.service.connect();
    client.send({ type: 'subscribe', ideaId: '../../etc' });
    expect(await client.waitFor((f) => f.type === 'error')).toMatchObject({ code: 'INVALID_FRAME' });
    client.send({ type: 'subscribe', ideaId: 'idea-0000000000000000' });
    expect(await client.waitFor((f) => f.type === 'error' && f.code !== 'INVALID_FRAME')).toMatchObject({
      code: 'IDEA_NOT_FOUND',
    });
    const idea = await fixture.service.createIdea('Still serving');
    await client.subscribe(idea.id);
    client.close();
  });
  it('cancels a build while a Bash tool runs from the cancel frame, and leaves nothing on the VM', async () => {
    const idea = await fixture.service.createIdea('Cancel me');
    const client = await fixture.service.connect();
    await client.subscribe(idea.id);
    fixture.model.enqueue(
      toolUse('Bash', { command: longRunningCommand(313), description: 'Wait a long time' }),
    );
    const from = client.frames.length;
    client.send({ type: 'build', ideaId: idea.id, message: 'Sleep.' });
    const started = await client.waitFor((f) => f.type === 'run:started', from);
    // The run's own processes on the VM, by run tag and place: the tool's sleep; and its claude.
    await waitUntil(
      async () => (await fixture.runProcesses(idea.id)).some((p) => p.cmdline === 'sleep 313'),
      { timeoutMs: 20_000, what: "the Bash tool's sleep, carrying the run tag" },
    );
    expect(claudeJobsOf(fixture, idea.id)).toHaveLength(1);
    client.send({ type: 'cancel', ideaId: idea.id });
    const events = await client.untilEnded(started);

    expect(events.at(-1)).toMatchObject({ type: 'run:ended', outcome: 'cancelled' });
    await expectNothingLeft(fixture, idea.id);
    const meta = await (await fixture.service.api(`/api/ideas/${idea.id}`)).json();
    expect(meta).toMatchObject({ idea: { meta: { status: 'chatting' }, running: false } });
    client.close();
  });
});
