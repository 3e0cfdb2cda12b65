import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import type { RelayEvent, RelayEventDraft } from '@catalyst/protocol';
import {
  claudeBinaryPath,
  claudeTestEnv,
  createTempDir,
  startScriptedModel,
  text,
  type ScriptedModel,
  type TempDir,
} from '@catalyst/testkit';
import type { Host } from '../src/host/host.ts';
import { createLocalHost } from '../src/host/local-host.ts';
import type { VmJobs } from '../src/host/vm-jobs.ts';
import { startRunDriver } from '../src/runs/run-driver.ts';
import type { RunDriverOptions } from '../src/runs/run-driver-options.ts';
import { expectNothingLeft, scanLocalProcesses } from './host-test-kit.ts';

// The end of a run when its bookkeeping or its relay fails: the real claude CLI on this machine (local host)
// against the scripted model. The run still ends once, `ended` settles, and nothing is left unhandled (vitest
// fails a file on an unhandled rejection).

let model: ScriptedModel;
let home: TempDir;
let project: TempDir;

beforeAll(async () => {
  model = await startScriptedModel();
  home = await createTempDir('driver-home');
  project = await createTempDir('driver-project');
});

afterAll(async () => {
  await model.close();
  await home.remove();
  await project.remove();
});

function startChat(
  overrides: Pick<RunDriverOptions, 'emit' | 'onFinish'> & Partial<Pick<RunDriverOptions, 'host'>>,
  logs: string[],
) {
  if (overrides.host === undefined) model.enqueue(text('Hello back.'));
  return startRunDriver({
    host: createLocalHost({ shell: '/bin/sh' }),
    ideaId: 'idea-0123456789abcdef',
    runId: 'run-driver-test',
    mode: 'chat',
    message: 'Hello.',
    cwd: project.path,
    claudePath: claudeBinaryPath(),
    env: claudeTestEnv({ home: home.path, modelUrl: model.url }),
    inactivityTimeoutMs: 30_000,
    maxDurationMs: 60_000,
    recap: () => Promise.resolve(''),
    relayLive: () => undefined,
    onSession: () => Promise.resolve(),
    logger: pino({ level: 'error' }, { write: (line: string) => logs.push(line) }),
    ...overrides,
  });
}

/** An emit that numbers the drafts as the history would, and keeps them. */
function collecting(events: RelayEvent[], refuse?: (draft: RelayEventDraft) => boolean) {
  return (draft: RelayEventDraft): RelayEvent => {
    if (refuse?.(draft)) throw new Error(`the history refused ${draft.type}`);
    const event = { ...draft, seq: events.length + 1, ts: new Date().toISOString() };
    events.push(event);
    return event;
  };
}

describe('the end of a run', () => {
  it('is relayed as run:ended even when meta.json could not be written, and the failure is logged', async () => {
    const events: RelayEvent[] = [];
    const logs: string[] = [];
    const run = startChat(
      { emit: collecting(events), onFinish: () => Promise.reject(new Error('disk full')) },
      logs,
    );
    const ending = await run.ended;
    expect(ending.outcome).toBe('completed');
    expect(events.filter((event) => event.type === 'run:ended')).toMatchObject([{ outcome: 'completed' }]);
    expect(logs.join('\n')).toContain('could not record the end of a run');
    expect(logs.join('\n')).toContain('disk full');
  });

  it('settles `ended` when the history refuses run:ended, and logs it instead of throwing', async () => {
    const events: RelayEvent[] = [];
    const logs: string[] = [];
    let finished = 0;
    const run = startChat(
      {
        emit: collecting(events, (draft) => draft.type === 'run:ended'),
        onFinish: () => {
          finished += 1;
          return Promise.resolve();
        },
      },
      logs,
    );
    const ending = await run.ended;
    expect(ending.outcome).toBe('completed');
    expect(finished).toBe(1);
    expect(events.some((event) => event.type === 'claude:text')).toBe(true);
    expect(logs.join('\n')).toContain('could not relay the end of a run');
  });
});

/**
 * The local host, whose sessions' attachments wait until `open()`: as an SSH host's do when every run channel of
 * its pool is taken (a busy host, issue 25 item 4), so a run waits there before its session exists.
 */
function busyHost(): { host: Host; open: () => void; started: Promise<string> } {
  const base = createLocalHost({ shell: '/bin/sh' });
  let open: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let markStarted: (sessionId: string) => void = () => undefined;
  const started = new Promise<string>((resolve) => (markStarted = resolve));
  const sessions: VmJobs = {
    start: async (spec) => {
      await base.jobs.start(spec);
      markStarted(spec.sessionId);
    },
    attach: async (...args) => {
      await gate;
      return base.jobs.attach(...args);
    },
    list: () => base.jobs.list(),
    stop: (id) => base.jobs.stop(id),
    remove: (id) => base.jobs.remove(id),
    close: () => {
      base.jobs.close();
    },
    get isClosed() {
      return base.jobs.isClosed;
    },
  };
  return { host: { ...base, jobs: sessions }, open, started };
}

describe('a cancel while the run waits for the host', () => {
  it('ends the run at once, cancelled; the claude that comes up afterwards is stopped', async () => {
    const events: RelayEvent[] = [];
    const { host, open, started } = busyHost();
    const run = startChat({ host, emit: collecting(events), onFinish: () => Promise.resolve() }, []);
    run.cancel();
    expect(await run.ended).toMatchObject({ outcome: 'cancelled' });
    expect(events.map((event) => event.type)).toEqual(['run:started', 'run:ended']);
    // The host answers after all: the session starts, and is stopped with everything in it.
    open();
    const sessionId = await started;
    await expectNothingLeft({ scanProcesses: scanLocalProcesses }, sessionId, 15_000);
    // Its session ended as cancelled, its files removed: nothing of the run is left on the host.
    await expect
      .poll(async () => (await host.jobs.list()).some((session) => session.sessionId === sessionId), {
        timeout: 15_000,
      })
      .toBe(false);
  });
});
