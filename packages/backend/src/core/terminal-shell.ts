import { createShellCall, type ShellCall } from './shell-quote.ts';
import { VM_MARKERS } from './vm-markers.ts';
import { VM_SCRIPTS } from './vm-scripts.generated.ts';

/**
 * The call of the script behind a terminal (issue 31): packages/backend/vm/terminal-shell.sh, the same on both hosts,
 * which says it is ready with TERMINAL_MARKER and its tty's name, reads the run tag as its first line, makes the
 * terminal's run dir (for the start-up sweep) and becomes the person's login shell with the tag in its environment.
 */

export const TERMINAL_MARKER = `@@${VM_MARKERS.terminal} `;
/** What may come before the marker (a noisy login file) before the terminal is given up as broken. */
export const MAX_BEFORE_MARKER_BYTES = 64 * 1024;

export function renderTerminalShell(options: { cwd: string; cols: number; rows: number }): ShellCall {
  return createShellCall(VM_SCRIPTS['terminal-shell'], 'catalyst-terminal', [
    String(options.cols),
    String(options.rows),
    options.cwd,
  ]);
}

export type MarkerSearch = { found: true; tty: string; rest: Buffer } | { found: false; isTooLong: boolean };

/** The marker line in what the pty printed so far: the tty's name, and the bytes after the line (the shell's). */
export function findTerminalMarker(printed: Buffer): MarkerSearch {
  const at = printed.indexOf(TERMINAL_MARKER);
  const end = at < 0 ? -1 : printed.indexOf('\n', at);
  if (end < 0) return { found: false, isTooLong: printed.length > MAX_BEFORE_MARKER_BYTES };
  const tty = printed
    .subarray(at + TERMINAL_MARKER.length, end)
    .toString('utf8')
    .replace(/\r$/, '');
  return { found: true, tty, rest: Buffer.from(printed.subarray(end + 1)) };
}
