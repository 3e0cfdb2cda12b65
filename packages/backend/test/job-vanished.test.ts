import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RelayEvent } from '@catalyst/protocol';
import { longRunningCommand, text, toolUse } from '@catalyst/testkit';
import { VANISHED_MESSAGE } from '../src/runs/core/run-ending.ts';
import { supervisorOf, within } from './host-test-kit.ts';
import { useServiceFixture, type IdeaClient } from './service-harness.ts';
import { expectNothingLeft, sessionOf } from './session-test-kit.ts';

// Issue 25, item 1: the session's supervisor and claude are SIGKILLed on the VM (an OOM kill, a reboot,
// systemd-logind's KillUserProcesses=yes). The run followed a dead session for ever, one run:detached a second;
// now it ends, once, in words, and nothing of it is left on the VM.

const fixture = useServiceFixture();

/** Starts a build whose Bash step sleeps for five minutes; resolves once the step runs. */
async function startSleepingBuild(client: IdeaClient, ideaId: string): Promise<RelayEvent> {
  // Nothing after the step: the session dies during it.
  fixture.model.enqueue(toolUse('Bash', { command: longRunningCommand(300), description: 'Sleep' }));
  const from = client.frames.length;
  client.send({ type: 'build', ideaId, message: 'Sleep for five minutes.' });
  const started = await client.waitFor((f) => f.type === 'run:started', from);
  await client.waitFor((f) => f.type === 'claude:tool_use', from);
  if (!('seq' in started)) throw new Error('run:started is not an event');
  return started;
}

/** SIGKILL to the session's supervisor (and its timer) and to claude itself; what claude started lives on. */
async function killSession(sessionId: string): Promise<void> {
  const { pids, dir } = await supervisorOf(sessionId);
  expect(pids.length).toBeGreaterThan(0);
  const claude = Number((await readFile(join(dir ?? '', 'job'), 'utf8')).trim());
  for (const pid of [...pids, claude]) process.kill(pid, 'SIGKILL');
}

function expectVanished(events: readonly RelayEvent[]): void {
  expect(events.at(-1)).toMatchObject({
    type: 'run:ended',
    outcome: 'failed',
    error: { code: 'SESSION_GONE', message: VANISHED_MESSAGE },
  });
  expect(events.filter((event) => event.type === 'run:ended')).toHaveLength(1);
  expect(events.filter((event) => event.type === 'run:detached')).toHaveLength(0);
}

describe('a build whose session dies on the VM', () => {
  it('ends within 10 s, failed, in words, and leaves nothing on the VM; the idea takes the next message', async () => {
    const idea = await fixture.service.createIdea('Session killed');
    const client = await fixture.service.connect();
    await client.subscribe(idea.id);
    const started = await startSleepingBuild(client, idea.id);
    const sessionId = sessionOf([started]) ?? '';
    await killSession(sessionId);

    const events = await within(client.untilEnded(started), 10_000, 'the end of the run');
    expectVanished(events);
    await expectNothingLeft(fixture, idea.id);
    const view = await (await fixture.service.api(`/api/ideas/${idea.id}`)).json();
    expect(view).toMatchObject({ idea: { running: false, meta: { status: 'failed' } } });

    fixture.model.enqueue(text('Back.'));
    const next = await client.run(idea.id, 'chat', 'Are you there?');
    expect(next.at(-1)).toMatchObject({ type: 'run:ended', outcome: 'completed' });
    client.close();
  });

  it('after a restart of Catalyst, the take-up of a dead session ends the run once, and a second restart adds nothing', async () => {
    const idea = await fixture.service.createIdea('Session killed while Catalyst was down');
    const before = await fixture.service.connect();
    await before.subscribe(idea.id);
    const started = await startSleepingBuild(before, idea.id);
    const sessionId = sessionOf([started]) ?? '';
    await fixture.service.catalyst.close({ keepRuns: true });
    await before.closed;
    await killSession(sessionId);

    const after = await (await fixture.restartService()).connect();
    await after.subscribe(idea.id, 0);
    await within(
      after.waitFor((f) => f.type === 'run:ended' && f.runId === started.runId),
      10_000,
      'the end of the run taken up',
    );
    const own = after.events().filter((event) => event.runId === started.runId);
    expectVanished(own);
    after.close();
    await expectNothingLeft(fixture, idea.id);

    await fixture.service.catalyst.close();
    const again = await (await fixture.restartService()).connect();
    await again.subscribe(idea.id, 0);
    const history = again.events().filter((event) => event.runId === started.runId);
    expect(history.map((event) => event.seq)).toEqual(own.map((event) => event.seq));
    again.close();
  });
});
