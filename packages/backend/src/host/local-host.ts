import { spawn } from 'node:child_process';
import { homedir } from 'node:os';
import { CatalystError } from '../core/catalyst-error.ts';
import { renderShellCallArgv } from '../core/shell-quote.ts';
import {
  parseSweepOutput,
  renderKillScript,
  renderRunTagLine,
  renderSweepScript,
} from '../core/run-wrapper.ts';
import type { Host, Preflight, RunHandle, RunSpec } from './host.ts';
import { runLocalCommand } from './local-command.ts';
import { createLocalFiles } from './local-files.ts';
import { openLocalTcp } from './local-tcp.ts';
import { openLocalTerminal } from './local-terminal.ts';
import { runLocalPreflight, type LocalPreflightOptions } from './local-preflight.ts';
import type { OpenRawChannel, RawChannel, RawChannelEnd } from './raw-channel.ts';
import { createVmJobs } from './vm-jobs.ts';
import { DEFAULT_GRACE_MS, startWrappedRun, SWEEP_STALE_MS } from './wrapped-run.ts';

/**
 * The Host on this machine: runs go through the same wrapper as over SSH, started as `<shell> -c <script>` in a
 * new session (`detached`), as sshd's setsid() would; files go through node:fs.
 */

export interface LocalHostOptions {
  /** The configured claude binary; wins over discovery (local-preflight.ts). */
  claudePath?: string;
  /** The CLI this project installed: found only when this machine has no claude of its own (local-preflight.ts). */
  bundledClaudePath?: string;
  /** The POSIX shell that runs the wrapper; default `/bin/sh`. The contract suite also runs `/bin/bash`. */
  shell?: string;
  /** Grace between TERM and KILL for killRun(). */
  killGraceMs?: number;
  /** Discovery settings for preflight() (environment, login shell); mostly for tests. */
  discovery?: Omit<LocalPreflightOptions, 'claudePath' | 'bundledClaudePath'>;
}

const KILL_SCRIPT_SLACK_MS = 10_000;
const SWEEP_TIMEOUT_MS = 60_000;
const TERMINAL_READY_MS = 15_000;
/** This machine has no pool of slots; its terminals are held to what an SSH host with the default pool allows. */
const LOCAL_MAX_TERMINALS = 8;

/** What a login on this machine would set; `LC_*` too. The run spec's env is exported on top by the wrapper. */
const RUN_ENV_NAMES: ReadonlySet<string> = new Set([
  'HOME',
  'USER',
  'LOGNAME',
  'PATH',
  'SHELL',
  'LANG',
  'LANGUAGE',
  'TERM',
  'TMPDIR',
]);

/**
 * The environment of the wrapper, and so of every run: an allow-list of the backend's, never all of it. The rest
 * holds CATALYST_TOKEN and whatever else the backend was started with, which a chat `Read` of /proc/self/environ
 * would show (issue 16, item 4). A run tag the backend may have inherited is left out too: W and D carry none.
 */
export function runnerEnvironment(source: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(source).filter(([name]) => RUN_ENV_NAMES.has(name) || name.startsWith('LC_')),
  );
}

function openLocalChannel(shell: string): OpenRawChannel {
  return (call) =>
    new Promise<RawChannel>((resolve, reject) => {
      const child = spawn(shell, renderShellCallArgv(call), {
        detached: true,
        stdio: ['pipe', 'pipe', 'pipe'],
        // Node's stdio pipes are socketpairs, and bash takes a socket on stdin for rshd: a top-level bash then
        // sources ~/.bashrc (pyenv, nvm: half a second per run here) before the wrapper. SHLVL=1 makes it a
        // second-level shell, which does not.
        env: { ...runnerEnvironment(), SHLVL: '1' },
        cwd: '/',
      });
      const ended = new Promise<RawChannelEnd>((settle) => {
        child.once('close', (code, signal) => {
          settle({ kind: 'exited', code, signal });
        });
      });
      child.once('error', (error) => {
        reject(
          new CatalystError('WRAPPER_UNSUPPORTED', `cannot start ${shell}: ${error.message}`, {
            cause: error,
          }),
        );
      });
      child.once('spawn', () => {
        resolve({
          stdin: child.stdin,
          stdout: child.stdout,
          stderr: child.stderr,
          ended,
          // Like sshd closing a channel: the pipes go, the wrapper's watchdog sees EOF and stops the run.
          destroy: () => {
            child.stdin.destroy();
            child.stdout.destroy();
            child.stderr.destroy();
          },
        });
      });
    });
}

async function killLocalRun(shell: string, runTag: string, graceMs: number): Promise<void> {
  const call = renderKillScript({ graceSeconds: graceMs / 1000 });
  const result = await runLocalCommand(shell, renderShellCallArgv(call), {
    timeoutMs: graceMs + KILL_SCRIPT_SLACK_MS,
    env: runnerEnvironment(),
    input: renderRunTagLine(runTag),
  });
  if (result.code !== 0) {
    throw new CatalystError(
      'WRAPPER_UNSUPPORTED',
      `the kill script for run ${runTag} failed: ${result.stderr.trim()}`,
      {
        details: { runTag, code: result.code, signal: result.signal, isTimedOut: result.isTimedOut },
      },
    );
  }
}

async function sweepLocalRuns(shell: string, graceMs: number): Promise<string[]> {
  const call = renderSweepScript({ staleSeconds: SWEEP_STALE_MS / 1000, graceSeconds: graceMs / 1000 });
  const result = await runLocalCommand(shell, renderShellCallArgv(call), {
    timeoutMs: SWEEP_TIMEOUT_MS,
    env: runnerEnvironment(),
  });
  if (result.code !== 0) {
    throw new CatalystError('WRAPPER_UNSUPPORTED', `the sweep script failed: ${result.stderr.trim()}`, {
      details: { code: result.code, signal: result.signal, isTimedOut: result.isTimedOut },
    });
  }
  return parseSweepOutput(result.stdout);
}

export function createLocalHost(options: LocalHostOptions = {}): Host {
  const shell = options.shell ?? '/bin/sh';
  const killGraceMs = options.killGraceMs ?? DEFAULT_GRACE_MS;
  const open = openLocalChannel(shell);
  const active = new Set<RunHandle>();
  let preflight: Promise<Preflight> | undefined;
  const killRun = (runTag: string): Promise<void> => killLocalRun(shell, runTag, killGraceMs);
  const jobs = createVmJobs({ open, shell, graceMs: killGraceMs });
  const startRun = async (spec: RunSpec): Promise<RunHandle> => {
    const handle = await startWrappedRun(open, spec, { killRun, shell });
    active.add(handle);
    void handle.outcome.then(() => active.delete(handle));
    return handle;
  };

  return {
    label: 'local',
    ...createLocalFiles(),
    startRun,
    // No channels to share on this machine: Catalyst's own commands start as runs do.
    startCommand: startRun,
    jobs,
    homeDir: () => Promise.resolve(homedir()),
    preflight() {
      preflight ??= runLocalPreflight({
        ...options.discovery,
        ...(options.claudePath === undefined ? {} : { claudePath: options.claudePath }),
        ...(options.bundledClaudePath === undefined ? {} : { bundledClaudePath: options.bundledClaudePath }),
      });
      return preflight;
    },
    openTcp: openLocalTcp,
    openTerminal: (spec) =>
      openLocalTerminal(spec, {
        killRun,
        readyTimeoutMs: TERMINAL_READY_MS,
        environment: runnerEnvironment(),
      }),
    maxTerminals: LOCAL_MAX_TERMINALS,
    killRun,
    sweepRuns: () => sweepLocalRuns(shell, killGraceMs),
    close() {
      jobs.close();
      // As a closing SSH connection would: each wrapper sees its stdin end and stops its run.
      for (const handle of active) handle.abandon();
      return Promise.resolve();
    },
  };
}
