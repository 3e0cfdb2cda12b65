import type { AutopilotState, RunState } from '@catalyst/protocol';
import type { CliErrorCode } from './cli-error.ts';

/** The exit codes the README promises: scripts branch on them. */
export const ExitCode = {
  completed: 0,
  failed: 1,
  usage: 2,
  /** Timed out, or the connection was lost (the run's, or this client's to Catalyst). */
  lost: 3,
  /** 128 + SIGINT, as a shell reports a command stopped with Ctrl-C. */
  cancelled: 130,
} as const;
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** A run that is still `running` when the client stops following it was lost from view. */
export function exitCodeOfRunState(state: RunState): ExitCodeValue {
  switch (state) {
    case 'completed':
      return ExitCode.completed;
    case 'failed':
      return ExitCode.failed;
    case 'cancelled':
      return ExitCode.cancelled;
    case 'timed_out':
    case 'connection_lost':
    case 'running':
      return ExitCode.lost;
  }
}

/** An autopilot's states are run states (`running` … `cancelled`): they exit as a run would; paused as running. */
export function exitCodeOfAutopilotState(state: AutopilotState): ExitCodeValue {
  return exitCodeOfRunState(state === 'paused' ? 'running' : state);
}

const LOST_CODES = new Set<CliErrorCode>(['UNREACHABLE', 'CONNECTION_LOST', 'RUN_TIMED_OUT']);

/** A usage error exits 2, a connection that could not be made or broke 3, anything else Catalyst refused 1. */
export function exitCodeOfError(code: CliErrorCode): ExitCodeValue {
  if (code === 'USAGE') return ExitCode.usage;
  return LOST_CODES.has(code) ? ExitCode.lost : ExitCode.failed;
}
