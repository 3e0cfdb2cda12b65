import { wrapForAnyLoginShell } from '../../core/shell-quote.ts';
import { renderTerminalShell } from '../../core/terminal-shell.ts';
import type { HostTerminal, TerminalSpec } from '../host.ts';
import { startTerminal } from '../terminal-channel.ts';
import type { SshConnection } from './ssh-connection.ts';
import type { SshPool } from './ssh-pool.ts';
import { toRawChannel } from './ssh-raw-channel.ts';

/**
 * A terminal over SSH (issue 31): the terminal script in an exec channel with a pty (`xterm-256color`), on a pooled
 * connection and counted as a run (it holds one of sshd's MaxSessions slots for as long as it is open). A resize is
 * the channel's window-change request.
 */

export const TERMINAL_TERM = 'xterm-256color';

export async function openSshTerminal(
  pool: SshPool,
  spec: TerminalSpec,
  options: { killRun: (runTag: string) => Promise<void>; label: string; readyTimeoutMs: number },
): Promise<HostTerminal> {
  const command = wrapForAnyLoginShell(renderTerminalShell(spec));
  const via: { connection?: SshConnection } = {};
  const channel = await pool.open('run', (connection) => {
    via.connection = connection;
    return connection.execPty(command, { term: TERMINAL_TERM, cols: spec.cols, rows: spec.rows });
  });
  const raw = toRawChannel(channel, via.connection);
  return startTerminal(
    {
      input: raw.stdin,
      output: raw.stdout,
      ended: raw.ended,
      destroy: () => {
        raw.destroy();
      },
    },
    {
      runTag: spec.runTag,
      killRun: options.killRun,
      // ssh2 takes rows first; the pixel size is unknown (0).
      resize: (_tty, cols, rows) => {
        channel.setWindow(rows, cols, 0, 0);
      },
      readyTimeoutMs: options.readyTimeoutMs,
      label: options.label,
    },
  );
}
