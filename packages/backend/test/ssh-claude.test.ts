import { randomBytes } from 'node:crypto';
import { rm, stat } from 'node:fs/promises';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createUserMessage, type CliMessage, type StreamEvent } from '@catalyst/protocol';
import {
  claudeBinaryPath,
  claudeTestEnv,
  findProcesses,
  startScriptedModel,
  stopAllSshd,
  text,
  toolUse,
  type ScriptedModel,
  type SshdHandle,
} from '@catalyst/testkit';
import { buildClaudeCommand } from '../src/core/claude-command.ts';
import { parseStream } from '../src/core/stream-parser.ts';
import type { RunHandle } from '../src/host/host.ts';
import { createSshHost, type SshHost } from '../src/host/ssh/ssh-host.ts';
import { expectNothingLeft, reapRuns, scanLocalProcesses, type HostTestContext } from './host-test-kit.ts';
import { createSharedSshd, sshHostConfig } from './ssh-test-kit.ts';

// The real claude CLI on the "VM" over SSH, as the bash user (whose ~/.bashrc prints noise): the testkit's
// binary (world-executable where pnpm put it), the scripted model on 127.0.0.1, HOME a directory that user owns.

const getSshd = createSharedSshd();
let sshd: SshdHandle;
let model: ScriptedModel;
let host: SshHost;
let dir: string;
const runTags: string[] = [];

function context(): HostTestContext {
  return { host, scratchDir: dir, scanProcesses: scanLocalProcesses, cleanup: () => Promise.resolve() };
}

beforeEach(async () => {
  sshd = await getSshd();
  model = await startScriptedModel();
  host = createSshHost(sshHostConfig(sshd, 'bash'));
  dir = `${sshd.users.bash.home}/catalyst-claude-${randomBytes(4).toString('hex')}`;
  // Made over SFTP, so the bash user owns them.
  await host.mkdirp(`${dir}/home`);
  await host.mkdirp(`${dir}/work`);
});
afterEach(async () => {
  await reapRuns(context(), runTags);
  await host.close();
  await model.close();
  await rm(dir, { recursive: true, force: true });
});
afterAll(async () => {
  await stopAllSshd();
});

function isMessage(event: StreamEvent, check: (message: CliMessage) => boolean): boolean {
  return event.kind === 'message' && check(event.message);
}

async function startClaude(graceMs?: number): Promise<RunHandle> {
  const command = buildClaudeCommand({ cwd: `${dir}/work`, claudePath: claudeBinaryPath() });
  const env = {
    // Our PATH means nothing on the VM; the bash user's would be sshd's default.
    ...claudeTestEnv({
      home: `${dir}/home`,
      modelUrl: model.url,
      maxRetries: 1,
      extra: { PATH: '/usr/bin:/bin' },
    }),
    ...command.env,
  };
  const limits = graceMs === undefined ? {} : { limits: { graceMs } };
  const handle = await host.startRun({ argv: command.argv, cwd: command.cwd, env, ...limits });
  runTags.push(handle.runTag);
  void (async () => {
    for await (const _chunk of handle.stderr) {
      // Drained so the run can finish; this test reads stdout only.
    }
  })();
  return handle;
}

/** `sleep 300` processes of the bash user: other test files may run their own `sleep 300` as root. */
async function bashUserSleeps(): Promise<number[]> {
  const { uid } = await stat(sshd.users.bash.home);
  const sleeps = await findProcesses('sleep 300');
  const owners = await Promise.all(
    sleeps.map((p) =>
      stat(`/proc/${String(p.pid)}`).then(
        (s) => s.uid,
        () => -1,
      ),
    ),
  );
  return sleeps.filter((_, index) => owners[index] === uid).map((p) => p.pid);
}

describe('the real claude CLI over SSH', () => {
  it('streams a turn that the backend parser types, with no rc-file noise, then exits 0 on endInput()', async () => {
    model.enqueue(text('Hello over SSH.'));
    const handle = await startClaude();
    await handle.writeLine(JSON.stringify(createUserMessage('hi')));
    const events: StreamEvent[] = [];
    for await (const event of parseStream(handle.stdout)) {
      events.push(event);
      if (isMessage(event, (m) => m.type === 'result')) await handle.endInput();
    }
    expect(events.filter((e) => e.kind !== 'message' || e.message.type === 'unknown')).toEqual([]);
    expect(events.find((e) => isMessage(e, (m) => m.type === 'system'))).toMatchObject({
      message: { type: 'system', subtype: 'init', cwd: `${dir}/work` },
    });
    expect(events.find((e) => isMessage(e, (m) => m.type === 'result'))).toMatchObject({
      message: { type: 'result', subtype: 'success', is_error: false, result: 'Hello over SSH.' },
    });
    expect(await handle.outcome).toEqual({ kind: 'exited', code: 0, signal: null });
  });

  it('cancel() during a Bash `sleep 300` leaves neither the sleep nor claude behind', async () => {
    model.enqueue(
      toolUse('Bash', { command: 'sleep 300', description: 'Sleep a long time' }),
      text('never sent'),
    );
    const handle = await startClaude(2000);
    await handle.writeLine(JSON.stringify(createUserMessage('sleep please')));
    for await (const event of parseStream(handle.stdout)) {
      if (isMessage(event, (m) => m.type === 'system' && m.subtype === 'task_started')) break;
    }
    const tagged = (await scanLocalProcesses(handle.runTag)).map((p) => p.cmdline);
    expect(tagged.some((cmdline) => cmdline.startsWith('sleep 300'))).toBe(true);
    expect(tagged.some((cmdline) => cmdline.startsWith(claudeBinaryPath()))).toBe(true);
    expect(await bashUserSleeps()).not.toEqual([]);
    const cancelledAt = Date.now();
    handle.cancel();
    expect(await handle.outcome).toEqual({ kind: 'cancelled' });
    await expectNothingLeft(context(), handle.runTag, 3000);
    console.log(
      `[real claude over ssh] cancel during Bash: nothing left ${String(Date.now() - cancelledAt)} ms after cancel()`,
    );
    expect(await bashUserSleeps()).toEqual([]);
  });
});
