import { createShellCall, type ShellCall } from './shell-quote.ts';

/**
 * The script behind a terminal (issue 31), the same on both hosts: on its pty it turns echo off, says it is ready
 * with its tty's name, reads the run tag as its first line (so the tag is in no command line, as for runs:
 * run-wrapper.ts), turns echo back on, goes to the project folder and becomes the person's login shell with
 * CATALYST_RUN_TAG in its environment. Everything the shell starts inherits the tag, so the kill script finds it.
 * Echo is off before the marker is printed, and the tag is written only after the marker is read, so the tag is
 * never echoed.
 */

export const TERMINAL_MARKER = '@@catalyst-terminal ';
/** What may come before the marker (a noisy login file) before the terminal is given up as broken. */
export const MAX_BEFORE_MARKER_BYTES = 64 * 1024;

const SCRIPT = [
  'stty -echo 2>/dev/null',
  'stty cols "$1" rows "$2" 2>/dev/null',
  `printf '${TERMINAL_MARKER}%s\\n' "$(tty)"`,
  'IFS= read -r cr_tag',
  'stty echo 2>/dev/null',
  'cd -- "$3" || exit 1',
  'CATALYST_RUN_TAG=$cr_tag',
  'export CATALYST_RUN_TAG',
  'cr_shell=${CATALYST_TERMINAL_SHELL:-${SHELL:-/bin/sh}}',
  'unset cr_tag CATALYST_TERMINAL_SHELL',
  'SHELL=$cr_shell',
  'export SHELL',
  'exec "$cr_shell" -l -i',
].join('\n');

export function renderTerminalShell(options: { cwd: string; cols: number; rows: number }): ShellCall {
  return createShellCall(SCRIPT, 'catalyst-terminal', [
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
