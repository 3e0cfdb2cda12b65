import { spawn } from 'node:child_process';
import { chmod, mkdir, stat, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createUserMessage, type CliMessage, type StreamEvent } from '@catalyst/protocol';
import {
  claudeBinaryPath,
  claudeTestEnv,
  createTempDir,
  findProcesses,
  startScriptedModel,
  text,
  toolUse,
  type ScriptedModel,
  waitUntil,
  type TempDir,
} from '@catalyst/testkit';
import { buildClaudeCommand } from '../src/core/claude-command.ts';
import { parseStream } from '../src/core/stream-parser.ts';
import type { RunHandle } from '../src/host/host.ts';
import { createLocalHost } from '../src/host/local-host.ts';
import { describeHostCleanup, type BackendFixtureInput, type HostCleanupSetup } from './host-cleanup.ts';
import { describeHostContract } from './host-contract.ts';
import {
  expectNothingLeft,
  hasLocalRunDir,
  reapRuns,
  scanLocalProcesses,
  type HostProcess,
  type HostTestContext,
} from './host-test-kit.ts';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const fixture = fileURLToPath(new URL('./fixtures/backend-run.ts', import.meta.url));

/** One node process (tsx as a loader, not its CLI, which would fork): SIGKILL reaches the host itself. */
function spawnLocalBackend(input: BackendFixtureInput) {
  return spawn(process.execPath, ['--import', 'tsx', fixture, JSON.stringify(input)], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

function localSetup(shell: string): HostCleanupSetup {
  return async () => {
    const scratch = await createTempDir('local-host');
    return {
      host: createLocalHost({ shell, killGraceMs: 1000 }),
      scratchDir: scratch.path,
      scanProcesses: scanLocalProcesses,
      hasRunDir: hasLocalRunDir,
      cleanup: () => scratch.remove(),
      // Root may write almost anywhere; sysfs still refuses new files to root (EACCES).
      permissionDeniedPath: process.getuid?.() === 0 ? '/sys/catalyst-denied' : '/root/catalyst-denied',
      spawnBackend: (input) => spawnLocalBackend({ ...input, shell }),
    };
  };
}

// dash is Debian's /bin/sh; bash is /bin/sh elsewhere. The wrapper must behave the same under both.
for (const shell of ['/bin/sh', '/bin/bash']) {
  describeHostContract(`local ${shell}`, localSetup(shell));
  describeHostCleanup(`local ${shell}`, localSetup(shell));
}

describe('local host specifics', () => {
  let scratch: TempDir;
  beforeEach(async () => {
    scratch = await createTempDir('local-specifics');
  });
  afterEach(async () => {
    await scratch.remove();
  });

  it('keeps the mode of a 0600 file it overwrites atomically', async () => {
    const path = `${scratch.path}/secret.json`;
    await writeFile(path, 'old', { mode: 0o600 });
    await createLocalHost().writeFileAtomic(path, 'new');
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });

  it('preflight: a configured claude path wins, and its version is read', async () => {
    const preflight = await createLocalHost({ claudePath: claudeBinaryPath() }).preflight();
    expect(preflight).toMatchObject({
      claudePath: claudeBinaryPath(),
      foundVia: 'config',
      canRunWrapper: true,
    });
    expect(preflight.version).toMatch(/2\.1\.197/);
    expect(preflight.problems).toEqual([]);
  });

  it('preflight: a wrong configured path is reported, not replaced by a search', async () => {
    const preflight = await createLocalHost({ claudePath: `${scratch.path}/nope` }).preflight();
    expect(preflight.claudePath).toBeUndefined();
    expect(preflight.problems.join('\n')).toContain(`${scratch.path}/nope`);
  });

  async function fakeClaude(dir: string): Promise<string> {
    await mkdir(dir, { recursive: true });
    await writeFile(`${dir}/claude`, '#!/bin/sh\necho "9.9.9 (Claude Code)"\n');
    await chmod(`${dir}/claude`, 0o755);
    return `${dir}/claude`;
  }

  it('preflight: finds claude in a usual install location when PATH lacks it', async () => {
    const path = await fakeClaude(`${scratch.path}/.local/bin`);
    const host = createLocalHost({ discovery: { env: { PATH: '/usr/bin:/bin', HOME: scratch.path } } });
    expect(await host.preflight()).toMatchObject({
      claudePath: path,
      foundVia: 'known-location',
      version: '9.9.9 (Claude Code)',
    });
  });

  it("preflight: falls back to the login shell's PATH", async () => {
    const path = await fakeClaude(`${scratch.path}/zshrc-bin`);
    const loginShell = `${scratch.path}/fake-shell`;
    await writeFile(
      loginShell,
      `#!/bin/sh\necho "rc noise"\necho "@@PATH=/usr/bin:${scratch.path}/zshrc-bin"\n`,
    );
    await chmod(loginShell, 0o755);
    const env = { PATH: '/usr/bin:/bin', HOME: `${scratch.path}/empty-home` };
    const preflight = await createLocalHost({ discovery: { env, loginShell } }).preflight();
    expect(preflight).toMatchObject({ claudePath: path, foundVia: 'login-shell' });
  });
});

function isMessage(event: StreamEvent, check: (message: CliMessage) => boolean): boolean {
  return event.kind === 'message' && check(event.message);
}

describe('the real claude CLI through the local host', () => {
  let model: ScriptedModel;
  let home: TempDir;
  let work: TempDir;
  const runTags: string[] = [];
  const host = createLocalHost();
  const context: HostTestContext = {
    host,
    scratchDir: '',
    scanProcesses: scanLocalProcesses,
    hasRunDir: hasLocalRunDir,
    cleanup: () => Promise.resolve(),
  };

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

  async function startClaude(graceMs?: number): Promise<RunHandle> {
    const command = buildClaudeCommand({ cwd: work.path, claudePath: claudeBinaryPath() });
    const env = { ...claudeTestEnv({ home: home.path, modelUrl: model.url, maxRetries: 1 }), ...command.env };
    const limits = graceMs === undefined ? {} : { limits: { graceMs } };
    const handle = await host.startRun({ argv: command.argv, cwd: command.cwd, env, ...limits });
    runTags.push(handle.runTag);
    // claude's stderr is empty in a normal run (claude-cli-protocol.md §1); it is read so the run can end.
    void (async () => {
      let bytes = 0;
      for await (const chunk of handle.stderr) bytes += chunk.length;
      return bytes;
    })();
    return handle;
  }

  it('streams a turn that the backend parser types, then exits 0 on endInput()', async () => {
    model.enqueue(text('Hello through the wrapper.'));
    const handle = await startClaude();
    await handle.writeLine(JSON.stringify(createUserMessage('hi')));
    const events: StreamEvent[] = [];
    for await (const event of parseStream(handle.stdout)) {
      events.push(event);
      if (isMessage(event, (m) => m.type === 'result')) await handle.endInput();
    }
    expect(events.filter((e) => e.kind !== 'message' || e.message.type === 'unknown')).toEqual([]);
    expect(events.find((e) => isMessage(e, (m) => m.type === 'result'))).toMatchObject({
      message: { type: 'result', subtype: 'success', is_error: false, result: 'Hello through the wrapper.' },
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
    // This run's own `sleep 300`: it must carry the run tag, and it is what must be gone afterwards (matching
    // by command line alone would also see another test process's sleep).
    let tagged: HostProcess[] = [];
    await waitUntil(
      async () => {
        tagged = await scanLocalProcesses(handle.runTag);
        return tagged.some((p) => p.cmdline === 'sleep 300');
      },
      { timeoutMs: 5000, what: "the Bash tool's sleep 300, carrying the run tag" },
    );
    const sleepPids = tagged.filter((p) => p.cmdline === 'sleep 300').map((p) => p.pid);
    expect(tagged.some((p) => p.cmdline.includes(claudeBinaryPath()))).toBe(true);
    const cancelledAt = Date.now();
    handle.cancel();
    expect(await handle.outcome).toEqual({ kind: 'cancelled' });
    await expectNothingLeft(context, handle.runTag, 3000);
    console.log(
      `[real claude] cancel during Bash: nothing left ${String(Date.now() - cancelledAt)} ms after cancel()`,
    );
    const sleepsLeft = await findProcesses('sleep 300');
    expect(sleepsLeft.filter((p) => sleepPids.includes(p.pid))).toEqual([]);
  });
});
