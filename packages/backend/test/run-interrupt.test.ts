import { tmpdir } from 'node:os';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createUserMessage, type CliMessage } from '@catalyst/protocol';
import {
  claudeBinaryPath,
  claudeTestEnv,
  createTempDir,
  stall,
  startScriptedModel,
  waitUntil,
  type ScriptedModel,
  type TempDir,
} from '@catalyst/testkit';
import { buildClaudeCommand } from '../src/core/claude-command.ts';
import { parseStream } from '../src/core/stream-parser.ts';
import type { RunHandle } from '../src/host/host.ts';
import { createLocalHost } from '../src/host/local-host.ts';
import {
  expectNothingLeft,
  hasLocalRunDir,
  reapRuns,
  scanLocalProcesses,
  watchRun,
  type HostTestContext,
} from './host-test-kit.ts';

// RunHandle.interrupt() through the real wrapper on this machine, under dash (Debian's /bin/sh) and bash: SIGINT
// reaches the job's main process alone, once per call, even after endInput(), and the run then ends as the job
// does. Then the real claude CLI, interrupted mid-turn.

/** A plain sh job (it installs no handler of its own, unlike claude) that exits 130 on its second SIGINT. */
function trappingJob(before: string): string[] {
  const trap = `trap 'n=$((n + 1)); echo "got-int $n"; [ "$n" -lt 2 ] || exit 130' INT`;
  return ['sh', '-c', ['n=0', trap, before, 'while :; do sleep 0.1; done'].join('\n')];
}

/** The pid of the run's tagged `sleep 300`, once it has exec'd. */
async function findTaggedSleep(runTag: string): Promise<number> {
  let pid: number | undefined;
  await waitUntil(
    async () => {
      pid = (await scanLocalProcesses(runTag)).find((p) => p.cmdline === 'sleep 300')?.pid;
      return pid !== undefined;
    },
    { timeoutMs: 5000, what: "the job's background sleep 300, carrying the run tag" },
  );
  if (pid === undefined) throw new Error('unreachable: waitUntil resolved without a pid');
  return pid;
}

async function readText(stream: AsyncIterable<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of stream) text += decoder.decode(chunk, { stream: true });
  return text + decoder.decode();
}

describe.each(['/bin/sh', '/bin/bash'])('interrupt() through the local host under %s', (shell) => {
  const host = createLocalHost({ shell, killGraceMs: 1000 });
  const context: HostTestContext = {
    host,
    scratchDir: tmpdir(),
    scanProcesses: scanLocalProcesses,
    hasRunDir: hasLocalRunDir,
    cleanup: () => Promise.resolve(),
  };
  const runTags: string[] = [];

  afterEach(async () => {
    await reapRuns(context, runTags);
  });

  async function startJob(before: string): Promise<RunHandle> {
    const handle = await host.startRun({
      argv: trappingJob(before),
      cwd: tmpdir(),
      limits: { graceMs: 1000 },
    });
    runTags.push(handle.runTag);
    return handle;
  }

  it('SIGINTs the job alone, once per call; the job exits 130 and its tagged sibling is reaped', async () => {
    // The sibling gets the default SIGINT back (a background sh job starts with it ignored), so a SIGINT sent
    // to the job's group or to the whole tag set would end it.
    const handle = await startJob('env --default-signal=INT sleep 300 &\necho ready');
    const watch = watchRun(handle);
    await watch.waitForStdout('ready\n');
    const sibling = await findTaggedSleep(handle.runTag);

    handle.interrupt();
    await watch.waitForStdout('got-int 1\n');
    const tagged = await scanLocalProcesses(handle.runTag);
    expect(tagged.find((p) => p.pid === sibling)).toMatchObject({ cmdline: 'sleep 300' });

    handle.interrupt();
    const { stdout, outcome } = await watch.finish();
    expect(stdout).toBe('ready\ngot-int 1\ngot-int 2\n');
    // `exited`, not `cancelled`: the interrupt claimed no stop reason, so the trailer says reason=exit.
    expect(outcome).toEqual({ kind: 'exited', code: 130, signal: null });
    await expectNothingLeft(context, handle.runTag, 3000);
  });

  it('still delivers after endInput(): the watchdog reads control lines after `e`', async () => {
    const handle = await startJob('cat >/dev/null\necho input-ended');
    const watch = watchRun(handle);
    await handle.endInput();
    await watch.waitForStdout('input-ended\n');

    handle.interrupt();
    await watch.waitForStdout('got-int 1\n');
    handle.interrupt();
    const { stdout, outcome } = await watch.finish();
    expect(stdout).toBe('input-ended\ngot-int 1\ngot-int 2\n');
    expect(outcome).toEqual({ kind: 'exited', code: 130, signal: null });
    await expectNothingLeft(context, handle.runTag, 3000);
  });
});

describe('interrupt() on the real claude CLI through the local host', () => {
  const host = createLocalHost();
  const context: HostTestContext = {
    host,
    scratchDir: tmpdir(),
    scanProcesses: scanLocalProcesses,
    hasRunDir: hasLocalRunDir,
    cleanup: () => Promise.resolve(),
  };
  const runTags: string[] = [];
  let model: ScriptedModel;
  let home: TempDir;
  let work: TempDir;

  beforeEach(async () => {
    model = await startScriptedModel();
    home = await createTempDir('home');
    work = await createTempDir('work');
  });
  afterEach(async () => {
    await reapRuns(context, runTags);
    await model.close();
    await home.remove();
    await work.remove();
  });

  it('ends a stalled turn: claude exits by itself, with no stop recorded', async () => {
    model.enqueue(stall('Part one of the'));
    const command = buildClaudeCommand({ cwd: work.path, claudePath: claudeBinaryPath() });
    const env = { ...claudeTestEnv({ home: home.path, modelUrl: model.url, maxRetries: 1 }), ...command.env };
    const handle = await host.startRun({ argv: command.argv, cwd: command.cwd, env });
    runTags.push(handle.runTag);
    // Read so the run can end (both streams are backpressured); shown when the outcome is not the expected one.
    const stderr = readText(handle.stderr);
    await handle.writeLine(JSON.stringify(createUserMessage('tell me a story')));
    await model.waitForRequest(0);
    handle.interrupt();
    const results: CliMessage[] = [];
    for await (const event of parseStream(handle.stdout)) {
      if (event.kind === 'message' && event.message.type === 'result') results.push(event.message);
    }
    // claude-cli-protocol.md §9 has the interrupted result flushed before the exit; claude 2.1.197 often exits
    // without it (from 1 run in 24 to most runs, by machine load), spawned directly as much as under the wrapper.
    for (const result of results) expect(result).toMatchObject({ subtype: 'error_during_execution' });
    expect(results.length).toBeLessThanOrEqual(1);
    // A stop would be `cancelled`; the stalled turn would otherwise never end.
    expect(await handle.outcome, await stderr).toEqual({ kind: 'exited', code: 0, signal: null });
    await expectNothingLeft(context, handle.runTag, 3000);
  });
});
