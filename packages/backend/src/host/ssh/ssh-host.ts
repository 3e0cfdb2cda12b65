import type { SFTPWrapper } from 'ssh2';
import { CatalystError } from '../../core/catalyst-error.ts';
import {
  parseSweepOutput,
  renderKillScript,
  renderRunTagLine,
  renderSweepScript,
} from '../../core/run-wrapper.ts';
import type { Host, Preflight, RunSpec } from '../host.ts';
import type { OpenRawChannel } from '../raw-channel.ts';
import { createVmSessions } from '../vm-sessions.ts';
import { DEFAULT_GRACE_MS, startWrappedRun, SWEEP_STALE_MS } from '../wrapped-run.ts';
import { realPath } from './sftp-calls.ts';
import { parseSshHostConfig, type SshHostConfig } from './ssh-config.ts';
import { openSshConnection } from './ssh-connection.ts';
import { runControlScript } from './ssh-control-command.ts';
import { describeError } from './ssh-errors.ts';
import { createSshFiles, type WithSftp } from './ssh-files.ts';
import { createSshPool, type PoolStats, type SshPool } from './ssh-pool.ts';
import { runSshPreflight } from './ssh-preflight.ts';
import { createSshOpenRawChannel } from './ssh-raw-channel.ts';

/**
 * The Host on a user's VM over plain SSH (nothing of ours is installed there): runs go through the run wrapper
 * in ssh2 exec channels, files through SFTP, all on pooled connections (ssh-pool.ts).
 */

export interface SshHost extends Host {
  /** The pool's counters: connections opened, handshakes, refusals, open channels, queue. */
  stats(): PoolStats;
}

export interface SshHostOptions {
  /** Grace between TERM and KILL for killRun(). */
  killGraceMs?: number;
}

const KILL_SCRIPT_SLACK_MS = 10_000;
const SWEEP_TIMEOUT_MS = 60_000;

/** Throws INVALID_ARGUMENT for a bad config and SSH_HOST_KEY_MISSING without a pinned host key. */
export function createSshHost(config: SshHostConfig, options: SshHostOptions = {}): SshHost {
  const settings = parseSshHostConfig(config);
  const pool = createSshPool({
    label: settings.label,
    connect: () => openSshConnection(settings),
    limits: settings.pool,
  });
  const openRun = createSshOpenRawChannel(pool, 'run');
  const openControl = createSshOpenRawChannel(pool, 'control');
  const withSftp = withSftpFrom(pool);
  const graceMs = options.killGraceMs ?? DEFAULT_GRACE_MS;
  const killRun = (runTag: string) => killSshRun(openControl, runTag, graceMs);
  const startProbe = (spec: RunSpec) => startWrappedRun(openControl, spec, { killRun });
  const sessions = createVmSessions({ open: openRun, openControl, graceMs });
  let home: Promise<string> | undefined;

  return {
    label: settings.label,
    ...createSshFiles(withSftp),
    startRun: (spec) => startWrappedRun(openRun, spec, { killRun }),
    sessions,
    // SFTP starts in $HOME; ssh2's ext_openssh_expandPath sends a malformed packet (ssh-field-notes.md §7).
    homeDir: () =>
      (home ??= forgetOnFailure(
        withSftp((sftp) => realPath(sftp, '.')),
        () => (home = undefined),
      )),
    preflight: cacheConclusive(() =>
      runSshPreflight({
        startRun: startProbe,
        timeoutMs: settings.timing.probeTimeoutMs,
        ...(settings.claudePath === undefined ? {} : { claudePath: settings.claudePath }),
      }),
    ),
    openTcp: (port) => pool.open('forward', (connection) => connection.forwardOut(port)),
    killRun,
    sweepRuns: () => sweepSshRuns(openControl, graceMs),
    close: () => {
      sessions.close();
      return pool.close();
    },
    stats: () => pool.stats(),
  };
}

/** An SFTP session unused this long is ended, so an idle host holds no channel. */
const SFTP_IDLE_MS = 2_000;

interface SharedSftp {
  sftp: SFTPWrapper;
  broken: SessionFailure;
  users: number;
  idle?: NodeJS.Timeout;
}

/**
 * One SFTP session per host, shared by every file operation under way (SFTP carries concurrent requests) and
 * ended after a short idle spell. Opening one per operation costs a channel and a forked sftp-server on the VM
 * each time: the event history appends every few tens of milliseconds while a run streams.
 */
function withSftpFrom(pool: SshPool): WithSftp {
  let shared: Promise<SharedSftp> | undefined;
  const open = (): Promise<SharedSftp> => {
    const opening = pool
      .open('control', (connection) => connection.sftp())
      .then((sftp: SFTPWrapper) => {
        const session: SharedSftp = { sftp, broken: failOnError(sftp), users: 0 };
        const forget = () => {
          if (shared === opening) shared = undefined;
        };
        sftp.on('close', forget);
        sftp.on('error', forget);
        return session;
      });
    opening.catch(() => {
      if (shared === opening) shared = undefined;
    });
    return opening;
  };
  return async (work) => {
    shared ??= open();
    const current = shared;
    const session = await current;
    clearTimeout(session.idle);
    session.users += 1;
    try {
      return await session.broken.race(work(session.sftp));
    } finally {
      session.users -= 1;
      if (session.users === 0) {
        session.idle = setTimeout(() => {
          if (shared === current) shared = undefined;
          // Ending the session frees its MaxSessions slot (§7: SFTP takes one like any channel).
          session.sftp.end();
        }, SFTP_IDLE_MS);
        session.idle.unref();
      }
    }
  };
}

/**
 * An SFTP session that fails at the protocol level emits 'error' (unhandled, it would end the process); the
 * operations under way fail with it instead. Pending requests also get their own callbacks' errors.
 * Each operation races its own short-lived promise, never one promise that lives as long as the session: every
 * `Promise.race` against a pending promise adds a reaction to it that keeps the race's result, so a long-lived one
 * would hold every Buffer the session ever read (measured: 0.8 MB per history replayed, bench-relay's 500 ideas).
 */
interface SessionFailure {
  race<T>(work: Promise<T>): Promise<T>;
}

function failOnError(sftp: SFTPWrapper): SessionFailure {
  let failure: CatalystError | undefined;
  const waiting = new Set<(error: CatalystError) => void>();
  sftp.on('error', (error: unknown) => {
    failure ??= new CatalystError('CONNECTION_LOST', `the SFTP session failed: ${describeError(error)}`, {
      cause: error,
    });
    for (const fail of waiting) fail(failure);
  });
  return {
    async race(work) {
      if (failure !== undefined) throw failure;
      let fail: ((error: CatalystError) => void) | undefined;
      const broken = new Promise<never>((_resolve, reject) => {
        fail = reject;
        waiting.add(reject);
      });
      try {
        return await Promise.race([work, broken]);
      } finally {
        if (fail !== undefined) waiting.delete(fail);
      }
    },
  };
}

/** A found claude is cached for the host's life; a VM that could not be reached is asked again next time. */
function cacheConclusive(
  run: () => Promise<{ preflight: Preflight; isConclusive: boolean }>,
): () => Promise<Preflight> {
  let cached: Promise<Preflight> | undefined;
  return () =>
    (cached ??= run().then((result) => {
      if (!result.isConclusive) cached = undefined;
      return result.preflight;
    }));
}

function forgetOnFailure<T>(promise: Promise<T>, forget: () => void): Promise<T> {
  promise.catch(forget);
  return promise;
}

/**
 * The kill-by-tag script on any pooled connection (§3b: out-of-band kill, after a reconnect or a backend
 * restart). It is the cleanup itself, so it runs as is, not under the wrapper.
 */
async function killSshRun(open: OpenRawChannel, runTag: string, graceMs: number): Promise<void> {
  const script = renderKillScript({ graceSeconds: graceMs / 1000 });
  const result = await runControlScript(open, script, {
    timeoutMs: graceMs + KILL_SCRIPT_SLACK_MS,
    what: `the kill script for run ${runTag}`,
    input: renderRunTagLine(runTag),
  });
  if (result.end.kind === 'exited' && result.end.code === 0) return;
  const status = result.end.kind === 'lost' ? result.end.message : `exit code ${String(result.end.code)}`;
  throw new CatalystError(
    'WRAPPER_UNSUPPORTED',
    `the kill script for run ${runTag} failed (${status}): ${result.stderr.trim()}`,
    {
      details: { runTag, end: result.end },
    },
  );
}

/** The sweep (renderSweepScript) on a control channel: stops this user's runs whose watchdog is gone. */
async function sweepSshRuns(open: OpenRawChannel, graceMs: number): Promise<string[]> {
  const script = renderSweepScript({ staleSeconds: SWEEP_STALE_MS / 1000, graceSeconds: graceMs / 1000 });
  const result = await runControlScript(open, script, {
    timeoutMs: SWEEP_TIMEOUT_MS,
    what: 'the sweep script',
  });
  if (result.end.kind === 'exited' && result.end.code === 0) return parseSweepOutput(result.stdout);
  const status = result.end.kind === 'lost' ? result.end.message : `exit code ${String(result.end.code)}`;
  throw new CatalystError(
    'WRAPPER_UNSUPPORTED',
    `the sweep script failed (${status}): ${result.stderr.trim()}`,
    {
      details: { end: result.end },
    },
  );
}
