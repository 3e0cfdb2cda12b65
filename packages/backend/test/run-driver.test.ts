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
import { createLocalHost } from '../src/host/local-host.ts';
import { startRunDriver, type RunDriverOptions } from '../src/runs/run-driver.ts';

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

function startChat(overrides: Pick<RunDriverOptions, 'emit' | 'onFinish'>, logs: string[]) {
  model.enqueue(text('Hello back.'));
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
