/**
 * The `@@` lines the scripts of packages/backend/vm print for Catalyst, each marker named once here, and the one
 * parser of such a line. A unit test (vm-markers.test.ts) checks that every `@@<name>` the scripts print is declared
 * here and every name declared is printed by one of them, so a rename on either side cannot drift.
 *
 * A marker line is `@@<name>` and then either `=<value>` (the rest of the line, spaces and all: `@@PATH=/usr/bin`,
 * `@@FAIL=git cat-file -s`) or space-separated words and `key=value` fields (`@@catalyst-run ended reason=exit
 * code=0`, `@@catalyst-attach busy 12`), or nothing (`@@STAT`).
 */

export const VM_MARKERS = {
  /**
   * run-wrapper.sh: `@@catalyst-run started tag=<tag> pid=<pid>` first on stdout and on stderr, and last on stderr
   * `\n@@catalyst-run ended reason=<why> code=<n>\n` (core/run-markers.ts).
   */
  run: 'catalyst-run',
  /**
   * session-start.sh: `@@catalyst-attach started` once the job runs; session-attach.sh: `@@catalyst-attach start` on
   * stdout and stderr once it holds the session, or on stderr `gone` (exit 3) or `busy <age s>` (exit 4).
   */
  attach: 'catalyst-attach',
  /** session-attach.sh, last on stderr: `\n@@catalyst-session-end code=<n> reason=<why>\n` (core/job-stderr.ts). */
  sessionEnd: 'catalyst-session-end',
  /** run-kill.sh: `@@catalyst-kill tag=<tag> remaining=<n>`. */
  kill: 'catalyst-kill',
  /** run-sweep.sh: `@@catalyst-sweep stopped tag=<tag>` per run it stopped. */
  sweep: 'catalyst-sweep',
  /** terminal-shell.sh: `@@catalyst-terminal <tty>` once it reads the run tag (terminals/core/terminal-shell.ts). */
  terminal: 'catalyst-terminal',
  /** checkpoint-git.sh: no git on the host; preflight-survey.sh: `@@NOGIT=1`, the same. */
  noGit: 'NOGIT',
  /** checkpoint-git.sh: `@@FAIL=<what failed>`. */
  fail: 'FAIL',
  /** checkpoint-git.sh: a stale `.git/index.lock` was removed. */
  staleLock: 'STALELOCK',
  /** checkpoint-git.sh: the change follows (`git diff-tree --raw --numstat -z`). */
  stat: 'STAT',
  /** checkpoint-git.sh: the last checkpoint is gone from the repository. */
  lostBase: 'LOSTBASE',
  /** checkpoint-git.sh: nothing to record. */
  same: 'SAME',
  /** checkpoint-git.sh: `@@COMMIT=<commit>`, the checkpoint made. */
  commit: 'COMMIT',
  /** checkpoint-git.sh: no such commit. */
  notFound: 'NOTFOUND',
  /** checkpoint-git.sh: the diff follows. */
  diff: 'DIFF',
  /** checkpoint-git.sh: the commit has no such path; preflight-survey.sh: `@@MISSING=<tool>`, a tool that is missing. */
  missing: 'MISSING',
  /** checkpoint-git.sh: `@@TYPE=<git's object type>`, the path is no file. */
  type: 'TYPE',
  /** checkpoint-git.sh: `@@SIZE=<bytes>` of the file. */
  size: 'SIZE',
  /** checkpoint-git.sh: the file's bytes follow. */
  data: 'DATA',
  /** preflight-survey.sh: `@@PATH=<sshd's PATH>`; login-path.sh and local-preflight.ts: the login shell's. */
  path: 'PATH',
  /** preflight-survey.sh: `@@SHELL=<the login shell>`. */
  shell: 'SHELL',
  /** preflight-survey.sh: `@@CONFIG=ok`, the configured claude is an executable file. */
  config: 'CONFIG',
  /** preflight-survey.sh, login-path.sh: `@@CMD=<path>`, what `command -v claude` finds. */
  cmd: 'CMD',
  /** preflight-survey.sh: `@@KNOWN=<path>`, a claude where an installer puts it. */
  known: 'KNOWN',
  /** preflight-survey.sh: `@@NVM=<path>`, a claude of one of nvm's node versions. */
  nvm: 'NVM',
} as const;

export type VmMarkerName = (typeof VM_MARKERS)[keyof typeof VM_MARKERS];

const NAMES: ReadonlySet<string> = new Set(Object.values(VM_MARKERS));

export function isVmMarkerName(name: string): name is VmMarkerName {
  return NAMES.has(name);
}

/** A marker's text up to its words or value: `@@<name>`, then each word after a space. */
export function markerText(name: VmMarkerName, ...words: readonly string[]): string {
  return [`@@${name}`, ...words].join(' ');
}

export interface MarkerLine {
  name: VmMarkerName;
  /** After `=`: the rest of the line. */
  value?: string;
  /** The bare words, in order. */
  words: string[];
  /** The `key=value` fields, in order. */
  fields: Map<string, string>;
}

const LINE = /^@@([A-Za-z][A-Za-z0-9-]*)(?:=([^\n]*)|((?: [^ \n]+)*))\n?$/;

/**
 * One line (with or without its `\n`) → the marker it is, or undefined when it is none or names no declared marker.
 * Words and fields are split on single spaces; a field's key is letters, its value anything but a space.
 */
export function parseMarkerLine(line: string): MarkerLine | undefined {
  const match = LINE.exec(line);
  const name = match?.[1];
  if (match === null || name === undefined || !isVmMarkerName(name)) return undefined;
  if (match[2] !== undefined) return { name, value: match[2], words: [], fields: new Map() };
  const words: string[] = [];
  const fields = new Map<string, string>();
  for (const token of (match[3] ?? '').split(' ').slice(1)) {
    const field = /^([a-z]+)=(.*)$/.exec(token);
    if (field?.[1] === undefined || field[2] === undefined) words.push(token);
    else fields.set(field[1], field[2]);
  }
  return { name, words, fields };
}

/**
 * Whether `line` is marker `name` with exactly these words, then exactly these field keys, in this order (their
 * values are the caller's to check).
 */
export function isMarkerShape(
  line: MarkerLine | undefined,
  name: VmMarkerName,
  shape: { words?: readonly string[]; keys?: readonly string[] },
): line is MarkerLine {
  if (line?.name !== name || line.value !== undefined) return false;
  const same = (a: readonly string[], b: readonly string[]) =>
    a.length === b.length && a.every((item, index) => item === b[index]);
  return same(line.words, shape.words ?? []) && same([...line.fields.keys()], shape.keys ?? []);
}
