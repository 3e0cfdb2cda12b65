import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RelayEvent } from '@catalyst/protocol';
import { text, toolUse, waitForFile, waitUntil } from '@catalyst/testkit';
import { spawnCatalyst } from './catalyst-process-kit.ts';
import { useServiceFixture, type IdeaClient } from './service-harness.ts';
import { expectOnlyWarmClaudeThenDelete } from './session-test-kit.ts';

// Catalyst stops in the middle of a build (issue 11): claude goes on in its session on the VM, and the next
// Catalyst takes the run up where the history left it. The browser sees a reconnect, then the rest of the run,
// nothing twice.

const fixture = useServiceFixture();
/** CATALYST_LEASE_MS of the Catalysts that get killed: 3 s instead of 30, so the test waits a lapse of seconds. */
const LEASE_MS = 3_000;

/** A Bash step that runs until the test lets it finish (the file `go` appears), then writes `marker`. */
function waitForGo(projectDir: string): string {
  const go = join(projectDir, 'go');
  const marker = join(projectDir, 'built.txt');
  return `echo waiting; ${waitForFile(go)}; echo done > ${marker}`;
}

/** Starts a build whose Bash step waits for `go`; resolves with its run id once the step runs. */
async function startWaitingBuild(client: IdeaClient, ideaId: string, projectDir: string): Promise<string> {
  fixture.model.enqueue(
    toolUse('Bash', { command: waitForGo(projectDir), description: 'Wait for go' }),
    text('Built after the restart.'),
  );
  client.send({ type: 'build', ideaId, message: 'Wait for go, then build.' });
  const started = await client.waitFor((f) => f.type === 'run:started');
  await client.waitFor((f) => f.type === 'claude:tool_use');
  return 'runId' in started && started.runId !== undefined ? started.runId : 'no run id';
}

/** The id of the job on the VM the run's turn started in (its `run:started`): its folder's name there. */
function jobOf(events: readonly RelayEvent[], runId: string): string {
  const started = events.find((event) => event.type === 'run:started' && event.runId === runId);
  const id = started?.type === 'run:started' ? started.session?.id : undefined;
  if (id === undefined) throw new Error(`no job named by the run:started of ${runId}`);
  return id;
}

/** Every relay event of the idea's history, as a browser opening it now would get them. */
async function wholeHistory(client: IdeaClient, ideaId: string): Promise<RelayEvent[]> {
  await client.subscribe(ideaId, 0);
  return client.events();
}

function expectEachOnce(events: RelayEvent[], runId: string): void {
  const own = events.filter((event) => event.runId === runId);
  const count = (type: RelayEvent['type']) => own.filter((event) => event.type === type).length;
  expect(count('run:started')).toBe(1);
  expect(count('run:ended')).toBe(1);
  expect(count('claude:tool_use')).toBe(1);
  expect(count('claude:tool_result')).toBe(1);
  expect(count('claude:result')).toBe(1);
  expect(own.filter((event) => event.type === 'claude:text').map((event) => event.text)).toEqual([
    'Built after the restart.',
  ]);
  // Where each event came from in the session's output: never the same place twice.
  const origins = own.flatMap((event) =>
    event.origin !== undefined && 'line' in event.origin ? [`${event.origin.line}.${event.origin.part}`] : [],
  );
  expect(new Set(origins).size).toBe(origins.length);
  expect(new Set(own.map((event) => event.seq)).size).toBe(own.length);
}

describe('a build when Catalyst stops and starts again', () => {
  it('is taken up from its session on the VM by the next Catalyst and completes, every event once', async () => {
    const idea = await fixture.service.createIdea('Restart mid-build');
    const projectDir = fixture.service.projectDir(idea.id);
    const before = await fixture.service.connect();
    await before.subscribe(idea.id);
    const runId = await startWaitingBuild(before, idea.id, projectDir);
    const seenBefore = before.events();

    // An update: Catalyst stops and lets its runs go on.
    await fixture.service.catalyst.close({ keepRuns: true });
    await before.closed;
    const after = await (await fixture.restartService()).connect();
    await after.subscribe(idea.id, seenBefore.at(-1)?.seq ?? 0);
    const listed = await fixture.service.api(`/api/ideas/${idea.id}`);
    expect(await listed.json()).toMatchObject({ idea: { running: true } });

    await writeFile(join(projectDir, 'go'), '');
    await after.waitFor((f) => f.type === 'run:ended' && f.runId === runId);
    const seen = [...seenBefore, ...after.events()];
    expect(seen.filter((event) => event.type === 'run:ended')).toMatchObject([{ outcome: 'completed' }]);
    expectEachOnce(seen, runId);
    expect(await readFile(join(projectDir, 'built.txt'), 'utf8')).toBe('done\n');

    const again = await fixture.service.connect();
    expectEachOnce(await wholeHistory(again, idea.id), runId);
    await expectOnlyWarmClaudeThenDelete(fixture, idea.id);
    after.close();
    again.close();
  });

  it('a run that ended while Catalyst was stopped reports its duration from its start, not from the take-up', async () => {
    const idea = await fixture.service.createIdea('Ended while stopped');
    const projectDir = fixture.service.projectDir(idea.id);
    const before = await fixture.service.connect();
    await before.subscribe(idea.id);
    const runId = await startWaitingBuild(before, idea.id, projectDir);
    const seenBefore = before.events();
    const started = seenBefore.find((event) => event.type === 'run:started');
    // The Bash step runs (its permission answered) before Catalyst stops: the turn can then end without it.
    await waitUntil(() => isRunningCommand(join(projectDir, 'go')), {
      timeoutMs: 20_000,
      what: 'the Bash step to run',
    });
    await fixture.service.catalyst.close({ keepRuns: true });
    await before.closed;

    // The turn ends on the VM while no Catalyst follows it: its result is in its job's output (the job the run
    // started in: the idea may have another, a claude pre-warmed for the composer's mode as the idea was opened).
    await writeFile(join(projectDir, 'go'), '');
    const out = join(fixture.sshd.users.bash.home, '.catalyst-sessions', jobOf(seenBefore, runId), 'out');
    await waitUntil(async () => (await readFile(out, 'utf8')).includes('"type":"result"'), {
      timeoutMs: 20_000,
      what: 'the turn to end on the VM',
    });
    const beforeTakeUpMs = Date.now() - Date.parse(started?.ts ?? '');

    const after = await (await fixture.restartService()).connect();
    await after.subscribe(idea.id, lastSeq(seenBefore));
    await after.waitFor((f) => f.type === 'run:ended' && f.runId === runId);
    const result = after.events().find((event) => event.type === 'claude:result');
    expect(result?.type === 'claude:result' ? result.result.durationMs : -1).toBeGreaterThanOrEqual(
      beforeTakeUpMs,
    );
    await expectOnlyWarmClaudeThenDelete(fixture, idea.id);
    after.close();
  });

  it('survives SIGKILL: taken up a second later, killed again, taken up after the lease lapsed; completes once', async () => {
    const idea = await fixture.service.createIdea('Killed mid-build');
    const projectDir = fixture.service.projectDir(idea.id);
    const { configDir, ideasRoot } = fixture.service;
    const settings = {
      sshd: fixture.sshd,
      user: fixture.sshd.users.bash,
      claudePath: fixture.claudePath,
      reuse: { configDir, ideasRoot },
      env: { CATALYST_LEASE_MS: String(LEASE_MS) },
    };
    // From here the idea's Catalyst is a process of its own, which SIGKILL really ends.
    await fixture.service.stop();
    const first = await spawnCatalyst(settings);
    const watching = await first.connect();
    await watching.subscribe(idea.id);
    const runId = await startWaitingBuild(watching, idea.id, projectDir);
    const seen = watching.events();
    await first.kill();

    // Within the lease: the session still counts its Catalyst there.
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS / 3));
    const second = await spawnCatalyst(settings);
    const rewatching = await second.connect();
    await rewatching.subscribe(idea.id, lastSeq(seen));
    const subscribed = await rewatching.waitFor((f) => f.type === 'subscribed');
    expect(subscribed).toMatchObject({ running: true });
    seen.push(...rewatching.events());
    await second.kill();

    // Long enough with no Catalyst that the session counts its backend gone; the turn goes on all the same.
    const heartbeat = join(
      fixture.sshd.users.bash.home,
      '.catalyst-sessions',
      jobOf(seen, runId),
      'heartbeat',
    );
    await waitUntil(async () => Date.now() - (await stat(heartbeat)).mtimeMs > LEASE_MS + 1_000, {
      timeoutMs: LEASE_MS + 10_000,
      what: 'the session’s lease to lapse',
    });
    const restartedAt = Date.now();
    const restarted = await fixture.restartService();
    // Taken up (its session heartbeated again) before the turn may end: a turn that ends while the lease has lapsed
    // leaves a warm claude whose backend is gone, which the session ends at once (a race the suite lost under load,
    // twice: the take-up's end is not yet its first heartbeat, so the test waits for that heartbeat itself).
    await restarted.catalyst.swept;
    await waitUntil(async () => (await stat(heartbeat)).mtimeMs >= restartedAt, {
      timeoutMs: LEASE_MS + 10_000,
      what: 'the taken-up session to heartbeat again',
    });
    const last = await restarted.connect();
    await last.subscribe(idea.id, lastSeq(seen));
    await writeFile(join(projectDir, 'go'), '');
    await last.waitFor((f) => f.type === 'run:ended' && f.runId === runId);
    seen.push(...last.events());
    const shown = asShown(seen);
    expect(shown.filter((event) => event.type === 'run:ended')).toMatchObject([{ outcome: 'completed' }]);
    expectEachOnce(shown, runId);
    // The history on the VM holds every event once, whatever the browser saw before the kill.
    const whole = await wholeHistory(await fixture.service.connect(), idea.id);
    expectEachOnce(whole, runId);
    await expectOnlyWarmClaudeThenDelete(fixture, idea.id);
    last.close();
  }, 90_000);
});

describe('two Catalysts on one ideas folder', () => {
  it('the second leaves a run the first follows alone: not taken up, not ended, not stopped; it refuses to run it', async () => {
    const idea = await fixture.service.createIdea('Followed elsewhere');
    const projectDir = fixture.service.projectDir(idea.id);
    const watching = await fixture.service.connect();
    await watching.subscribe(idea.id);
    const runId = await startWaitingBuild(watching, idea.id, projectDir);

    const { configDir, ideasRoot } = fixture.service;
    const second = await fixture.startAnother({ reuse: { configDir, ideasRoot } });
    // Its start-up look at the sessions: the run's session is attached and heard from for a whole stale window.
    await second.catalyst.swept;
    const other = await second.connect();
    await other.subscribe(idea.id);
    other.send({ type: 'chat', ideaId: idea.id, message: 'Anyone there?' });
    const refusal = await other.waitFor((f) => f.type === 'error');
    expect(refusal).toMatchObject({ code: 'SESSION_BUSY' });
    expect(refusal.type === 'error' ? refusal.message : '').toContain('Another Catalyst');
    other.close();
    await second.stop();

    await writeFile(join(projectDir, 'go'), '');
    await watching.waitFor((f) => f.type === 'run:ended' && f.runId === runId);
    expect(watching.events().filter((event) => event.type === 'run:ended')).toMatchObject([
      { outcome: 'completed' },
    ]);
    expectEachOnce(watching.events(), runId);
    // Nothing of the second Catalyst in the history: no run:ended of its own, no event twice.
    expectEachOnce(await wholeHistory(await fixture.service.connect(), idea.id), runId);
    await expectOnlyWarmClaudeThenDelete(fixture, idea.id);
    watching.close();
  }, 90_000);
});

/**
 * What a browser shows of the events it received: as the web app does (transcript-state.ts), an event from the same
 * place of the same run as one it holds is the same event, made again by a Catalyst killed before it wrote it.
 */
function asShown(events: readonly RelayEvent[]): RelayEvent[] {
  const places = new Set<string>();
  return events.filter((event) => {
    const origin = event.origin;
    if (origin === undefined || !('line' in origin)) return true;
    const place = `${event.runId ?? ''} ${String(origin.line)}.${String(origin.part)}`;
    if (places.has(place)) return false;
    places.add(place);
    return true;
  });
}

/** Whether a process on this machine (the test kit's VM is loopback) has `part` in its command line. */
async function isRunningCommand(part: string): Promise<boolean> {
  const pids = (await readdir('/proc')).filter((name) => /^\d+$/.test(name));
  const lines = await Promise.all(
    pids.map((pid) => readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')),
  );
  return lines.some((line) => line.includes(part));
}

function lastSeq(events: readonly RelayEvent[]): number {
  return events.at(-1)?.seq ?? 0;
}
