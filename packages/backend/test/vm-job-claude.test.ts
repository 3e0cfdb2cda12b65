import { randomBytes } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createUserMessage, type CliMessage } from '@catalyst/protocol';
import {
  claudeTestEnv,
  installSharedClaude,
  longRunningCommand,
  startScriptedModel,
  stopAllSshd,
  text,
  toolUse,
  waitUntil,
  type ScriptedModel,
  type SshdHandle,
} from '@catalyst/testkit';
import { buildClaudeCommand } from '../src/core/claude-command.ts';
import { parseStream } from '../src/core/stream-parser.ts';
import { createSshHost, type SshHost } from '../src/host/ssh/ssh-host.ts';
import type { JobAttachment } from '../src/host/vm-jobs.ts';
import { expectNothingLeft, scanLocalProcesses } from './host-test-kit.ts';
import { createSharedSshd, sshHostConfig } from './ssh-test-kit.ts';

// The real claude CLI in a session that lives on the VM (issue 11), over the test kit's sshd as the bash user:
// several turns in one process, and a turn that goes on while nobody is attached, read exactly once on re-attach.

const getSshd = createSharedSshd();
let sshd: SshdHandle;
let host: SshHost;
let model: ScriptedModel;
let claudePath: string;
let dir: string;
const sessions: string[] = [];

beforeAll(async () => {
  [sshd, model, claudePath] = await Promise.all([getSshd(), startScriptedModel(), installSharedClaude()]);
  host = createSshHost(sshHostConfig(sshd, 'bash'), { killGraceMs: 1000 });
  dir = `${sshd.users.bash.home}/catalyst-session-${randomBytes(4).toString('hex')}`;
  await host.mkdirp(`${dir}/home`);
  await host.mkdirp(`${dir}/work`);
}, 120_000);
afterEach(async () => {
  for (const sessionId of sessions.splice(0)) {
    await host.jobs.stop(sessionId);
    await expectNothingLeft({ scanProcesses: scanLocalProcesses }, sessionId, 10_000);
  }
  expect(model.remainingReplies()).toBe(0);
});
afterAll(async () => {
  await host.close();
  await model.close();
  await stopAllSshd();
  await rm(dir, { recursive: true, force: true });
});

async function startClaudeSession(): Promise<string> {
  const sessionId = `s${randomBytes(8).toString('hex')}`;
  sessions.push(sessionId);
  const command = buildClaudeCommand({ cwd: `${dir}/work`, claudePath });
  const env = {
    ...claudeTestEnv({
      home: `${dir}/home`,
      modelUrl: model.url,
      maxRetries: 1,
      extra: { PATH: '/usr/bin:/bin' },
    }),
    ...command.env,
  };
  await host.jobs.start({
    sessionId,
    argv: command.argv,
    cwd: command.cwd,
    env,
    limits: {
      warmIdleSeconds: 600,
      leaseSeconds: 600,
      detachedSeconds: 600,
      maxLifetimeSeconds: 600,
      graceSeconds: 1,
    },
  });
  return sessionId;
}

/** Reads the attachment's stdout as CLI messages, counting bytes, until `until` matches one. */
function reader(attachment: JobAttachment) {
  const messages: CliMessage[] = [];
  let bytes = 0;
  const counted = (async function* () {
    for await (const chunk of attachment.stdout) {
      bytes += chunk.length;
      yield chunk;
    }
  })();
  const parsed = (async () => {
    for await (const event of parseStream(counted))
      if (event.kind === 'message') messages.push(event.message);
  })();
  return {
    messages,
    bytes: () => bytes,
    parsed,
    until: (check: (m: CliMessage) => boolean, what: string) =>
      waitUntil(() => messages.some(check), { timeoutMs: 20_000, intervalMs: 10, what }),
  };
}

const results = (messages: CliMessage[]) => messages.filter((m) => m.type === 'result');

describe('the real claude CLI in a session on the VM', () => {
  it('takes turn after turn in one process, and exits when its input is closed', async () => {
    const sessionId = await startClaudeSession();
    const attachment = await host.jobs.attach(sessionId, { stdout: 0, stderr: 0 });
    const read = reader(attachment);
    for (const [index, answer] of ['First answer.', 'Second answer.', 'Third answer.'].entries()) {
      model.enqueue(text(answer));
      attachment.writeLine(JSON.stringify(createUserMessage(`turn ${String(index + 1)}`)));
      await read.until(() => results(read.messages).length === index + 1, answer);
    }
    expect(results(read.messages).map((m) => m.result)).toEqual([
      'First answer.',
      'Second answer.',
      'Third answer.',
    ]);
    const claudes = (await scanLocalProcesses(sessionId)).filter((p) => p.cmdline.startsWith(claudePath));
    expect(claudes).toHaveLength(1);
    attachment.endInput();
    expect(await attachment.ended).toEqual({ kind: 'session_ended', code: 0, reason: 'exit' });
  });

  it('a turn goes on while nobody is attached; a re-attach from the offset reads the rest exactly once', async () => {
    const sessionId = await startClaudeSession();
    const first = await host.jobs.attach(sessionId, { stdout: 0, stderr: 0 });
    const before = reader(first);
    model.enqueue(toolUse('Bash', { command: longRunningCommand(2), description: 'Wait' }), text('Waited.'));
    first.markTurn(true);
    first.writeLine(JSON.stringify(createUserMessage('wait, then answer')));
    await before.until((m) => m.type === 'assistant', 'the tool call');
    first.detach();
    await first.ended;
    await before.parsed;
    const offset = before.bytes();

    await waitUntil(async () => (await readFile(outFile(sessionId), 'utf8')).includes('"type":"result"'), {
      timeoutMs: 20_000,
      what: 'the turn to finish while detached',
    });
    const second = await host.jobs.attach(sessionId, { stdout: offset, stderr: 0 });
    const after = reader(second);
    await after.until((m) => m.type === 'result', 'the result, read after re-attaching');
    second.endInput();
    await second.ended;
    await after.parsed;

    const onVm = await readFile(outFile(sessionId));
    expect(offset + after.bytes()).toBe(onVm.length);
    expect(results(before.messages)).toEqual([]);
    expect(results(after.messages)).toEqual([
      expect.objectContaining({ subtype: 'success', result: 'Waited.' }),
    ]);
  });
});

function outFile(sessionId: string): string {
  return join(sshd.users.bash.home, '.catalyst-sessions', sessionId, 'out');
}
