import type { TerminalEndReason } from '@catalyst/protocol';
import type { TerminalEnd } from '../host/host.ts';

/** How a terminal ended, in the words its client shows (the `ended` frame, docs/protocol.md). */

export interface TerminalEnding {
  reason: TerminalEndReason;
  exitCode: number | null;
  message: string;
}

const MESSAGES: Record<TerminalEndReason, string> = {
  exited: 'The shell exited.',
  closed: 'The terminal was closed.',
  idea_deleted: 'The idea was deleted, so its terminal ended.',
  detached: 'No one came back to this terminal in time, so it ended.',
  lost: 'The connection to the host was lost, so the terminal ended.',
  shutdown: 'Catalyst stopped, so the terminal ended.',
};

export function describeEnding(
  closingReason: TerminalEndReason | undefined,
  end: TerminalEnd,
): TerminalEnding {
  const reason = closingReason ?? (end.kind === 'lost' ? 'lost' : 'exited');
  const exitCode = end.kind === 'exited' ? end.code : null;
  const message =
    reason === 'exited' && exitCode !== null && exitCode !== 0
      ? `The shell exited with code ${String(exitCode)}.`
      : MESSAGES[reason];
  return { reason, exitCode, message };
}
