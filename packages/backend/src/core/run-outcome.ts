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
  | { kind: 'start_failed'; code: StartFailureCode; message: string };
