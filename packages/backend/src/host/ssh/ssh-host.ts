import { CatalystError } from '../../core/catalyst-error.ts';
import {
  parseSweepOutput,
  renderKillScript,
  renderRunTagLine,
  renderSweepScript,
} from '../../core/run-wrapper.ts';
import { terminalShareOf, type Host, type Preflight, type RunSpec } from '../host.ts';
import type { OpenRawChannel } from '../raw-channel.ts';
import { createVmJobs } from '../vm-jobs.ts';
import { DEFAULT_GRACE_MS, startWrappedRun, SWEEP_STALE_MS } from '../wrapped-run.ts';
import { realPath } from './sftp-calls.ts';
import { parseSshHostConfig, type SshHostConfig } from './ssh-config.ts';
import { openSshConnection } from './ssh-connection.ts';
import { createJumpChains } from './ssh-jump-chains.ts';
import { runControlScript } from './ssh-control-command.ts';
import { createSharedSftp, DEFAULT_FILE_TIMEOUT_MS } from './sftp-client.ts';
import { createSshFiles } from './ssh-files.ts';
import { readWithinOverSsh } from './ssh-read-within.ts';
import { createSshPool, type PoolStats } from './ssh-pool.ts';
import { runSshPreflight } from './ssh-preflight.ts';
import { createSshOpenRawChannel } from './ssh-raw-channel.ts';
import { openSshTerminal } from './ssh-terminal.ts';

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
  /** The longest one file call may wait for the host (sftp-client.ts; CATALYST_FILE_TIMEOUT_MS). */
  fileTimeoutMs?: number;
  /** A run waits for one of the host's channels and none can be added (ssh-pool.ts onRunWaiting). */
  onRunChannelShortage?: () => void;
}

const KILL_SCRIPT_SLACK_MS = 10_000;
const SWEEP_TIMEOUT_MS = 60_000;

/** Throws INVALID_ARGUMENT for a bad config and SSH_HOST_KEY_MISSING without a pinned host key. */
export function createSshHost(config: SshHostConfig, options: SshHostOptions = {}): SshHost {
  const settings = parseSshHostConfig(config);
  const chains = createJumpChains();
  let authenticatedWith: string | undefined;
  const pool = createSshPool({
    label: settings.label,
    connect: async () => {
      const connection = await openSshConnection(await settings.route(), chains);
      authenticatedWith = connection.authenticatedWith;
      return connection;
    },
    limits: settings.pool,
    ...(options.onRunChannelShortage === undefined ? {} : { onRunWaiting: options.onRunChannelShortage }),
  });
  const openRun = createSshOpenRawChannel(pool, 'run');
  const openControl = createSshOpenRawChannel(pool, 'control');
  const fileTimeoutMs = options.fileTimeoutMs ?? DEFAULT_FILE_TIMEOUT_MS;
  const withSftp = createSharedSftp(pool, { label: settings.label, timeoutMs: fileTimeoutMs });
  const graceMs = options.killGraceMs ?? DEFAULT_GRACE_MS;
  const killRun = (runTag: string) => killSshRun(openControl, runTag, graceMs);
  const startCommand = (spec: RunSpec) => startWrappedRun(openControl, spec, { killRun });
  const jobs = createVmJobs({ open: openRun, openControl, graceMs });
  let home: Promise<string> | undefined;

  return {
    label: settings.label,
    ...createSshFiles(withSftp, (request) =>
      readWithinOverSsh(openControl, request, { label: settings.label, timeoutMs: fileTimeoutMs }),
    ),
    startRun: (spec) => startWrappedRun(openRun, spec, { killRun }),
    startCommand,
    jobs,
    // SFTP starts in $HOME; ssh2's ext_openssh_expandPath sends a malformed packet (ssh-field-notes.md §7).
    homeDir: () =>
      (home ??= forgetOnFailure(
        withSftp({ action: 'resolve', path: '~' }, (sftp) => realPath(sftp, '.')),
        () => (home = undefined),
      )),
    preflight: cacheConclusive(() =>
      runSshPreflight({
        startRun: startCommand,
        timeoutMs: settings.timing.probeTimeoutMs,
        ...(settings.claudePath === undefined ? {} : { claudePath: settings.claudePath }),
      }),
    ),
    openTcp: (address, port) => pool.open('forward', (connection) => connection.forwardOut(address, port)),
    openTerminal: (spec) =>
      openSshTerminal(pool, spec, {
        killRun,
        label: settings.label,
        readyTimeoutMs: settings.timing.probeTimeoutMs,
      }),
    maxTerminals: terminalShareOf(settings.pool.maxRunsPerConnection * settings.pool.maxConnections),
    killRun,
    sweepRuns: () => sweepSshRuns(openControl, graceMs),
    close: async () => {
      jobs.close();
      await pool.close();
      chains.closeAll();
    },
    authenticatedWith: () => authenticatedWith,
    stats: () => pool.stats(),
    describeRoute: async () => {
      const route = await settings.route();
      return {
        target: route.target.label,
        jumps: route.jumps.map((hop) => hop.label),
        proxyCommand: route.proxyCommand,
        ignored: route.ignored,
      };
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
  const result = await runControlScript(open, renderKillScript({ graceSeconds: graceMs / 1000 }), {
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
  const call = renderSweepScript({ staleSeconds: SWEEP_STALE_MS / 1000, graceSeconds: graceMs / 1000 });
  const result = await runControlScript(open, call, {
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
