import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { longRunningCommand, text, toolUse, waitUntil } from '@catalyst/testkit';
import { createSshHost } from '../src/host/ssh/ssh-host.ts';
import { useServiceFixture } from './service-harness.ts';
import { expectOnlyWarmClaudeThenDelete } from './session-test-kit.ts';
import { findSessionProcesses, sshHostConfig } from './ssh-test-kit.ts';

// A build whose SSH connection drops mid-run (issue 11): claude lives in a session on the VM, so the run goes on
// there; Catalyst says so in the transcript, reconnects, and the build completes with nothing lost or doubled.

const fixture = useServiceFixture();

describe('a build when the connection to the VM drops', () => {
  it('goes on on the VM, re-attaches, and completes; the transcript says what happened', async () => {
    const idea = await fixture.service.createIdea('Connection drop');
    const client = await fixture.service.connect();
    await client.subscribe(idea.id);
    const marker = join(fixture.service.projectDir(idea.id), 'after-the-drop.txt');
    fixture.model.enqueue(
      toolUse('Bash', { command: `${longRunningCommand(3)} && echo done > ${marker}`, description: 'Wait' }),
      text('The wait is over.'),
    );
    const from = client.frames.length;
    client.send({ type: 'build', ideaId: idea.id, message: 'Wait three seconds, then write a file.' });
    const started = await client.waitFor((f) => f.type === 'run:started', from);
    await client.waitFor((f) => f.type === 'claude:tool_use', from);
    // The VM's sshd session processes die, as when the network drops: every channel of this backend is gone.
    for (const pid of await findSessionProcesses(fixture.sshd)) process.kill(pid, 'SIGKILL');

    // Should it never end, say how far it got (the frames' types), not only that the test timed out.
    const giveUp = new AbortController();
    const events = await Promise.race([
      client.untilEnded(started).finally(() => {
        giveUp.abort();
      }),
      delay(100_000, undefined, { signal: giveUp.signal }).then(() => {
        throw new Error(`no run:ended; the frames so far: ${client.frames.map((f) => f.type).join(', ')}`);
      }),
    ]);
    const types = events.map((event) => event.type);
    expect(types).toContain('run:detached');
    expect(types.indexOf('run:attached')).toBeGreaterThan(types.indexOf('run:detached'));
    expect(events.at(-1)).toMatchObject({ type: 'run:ended', outcome: 'completed' });
    expect(await readFile(marker, 'utf8')).toBe('done\n');
    // Each of Claude's messages once: the re-attach read on from where it was.
    const texts = events.filter((event) => event.type === 'claude:text').map((event) => event.text);
    expect(texts).toEqual(['The wait is over.']);
    expect(events.filter((event) => event.type === 'claude:tool_use')).toHaveLength(1);
    expect(events.filter((event) => event.type === 'claude:result')).toHaveLength(1);
    await expectOnlyWarmClaudeThenDelete(fixture, idea.id);
    client.close();
    // Had the VM still held the lost attachment (a connection it never heard go), the re-attach would have taken it
    // over at once, as the same run's, instead of being refused until it was 16 s stale (issue 39;
    // job-reattach.test.ts).
  }, 120_000);

  it('a session that ended while no Catalyst followed it is removed at the next start', async () => {
    const host = createSshHost(sshHostConfig(fixture.sshd, 'bash'));
    const sessionId = `s${randomBytes(8).toString('hex')}`;
    const limits = {
      warmIdleSeconds: 60,
      leaseSeconds: 60,
      detachedSeconds: 60,
      maxLifetimeSeconds: 60,
      graceSeconds: 1,
    };
    await host.jobs.start({ sessionId, argv: ['sh', '-c', 'exit 0'], cwd: '/tmp', limits });
    const find = async () => (await host.jobs.list()).find((session) => session.sessionId === sessionId);
    await waitUntil(async () => (await find())?.isAlive === false, {
      timeoutMs: 10_000,
      what: 'the session to end',
    });

    const restarted = await fixture.startAnother();
    await restarted.catalyst.swept;
    expect(await find()).toBeUndefined();
    await host.close();
  });
});
