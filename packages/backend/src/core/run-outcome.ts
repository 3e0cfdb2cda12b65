/**
 * How a run ended on its host, as the host reports it: the pure core (run-lifecycle.ts, run-ending.ts,
 * run-markers.ts) decides from it, and the Host port (host/host.ts) promises exactly one per run. It lives here so
 * the core knows nothing of the host layer.
 */
export type StartFailureCode =
  | 'CLI_NOT_FOUND'
  | 'CWD_NOT_FOUND'
  | 'WRAPPER_UNSUPPORTED'
  | 'RUN_START_FAILED'
  | 'SSH_CONNECT_FAILED'
  | 'HOST_DISK_FULL';

/** How a run ended. Exactly one per run. */
export type RunOutcome =
  | { kind: 'exited'; code: number | null; signal: string | null }
  | { kind: 'cancelled' }
  | { kind: 'lease_lost' }
  | { kind: 'max_runtime' }
  /** The disk holding the run's output on the host is full: the run was stopped there. */
  | { kind: 'disk_full' }
  | { kind: 'connection_lost'; message: string }
  /**
   * The run's session on the host ended without a word: its supervisor was killed (an OOM kill, a reboot,
   * systemd-logind's KillUserProcesses), so nothing says how the job ended (issue 25, item 1).
   */
  | { kind: 'vanished' }
  | { kind: 'start_failed'; code: StartFailureCode; message: string };
