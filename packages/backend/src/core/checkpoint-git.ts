import { MAX_CHECKPOINT_FILES, type CheckpointChange, type CheckpointKind } from '@catalyst/protocol';
import { parseRawNumstat } from './git-diff-stat.ts';

/**
 * The git commands of a checkpoint (issue 13), as `/bin/sh -c` scripts run on the host in the idea's `project/`
 * through the run wrapper (one process per operation: a checkpoint is one round trip), and the reading of what they
 * print. Commits are made with plumbing (write-tree, commit-tree, update-ref): no porcelain refresh, no hooks.
 * Everything variable is kept out of the script: commits and paths are positional arguments, and a commit message,
 * which holds the person's words, comes on stdin (gitCommand), since an argv is shown by `ps` to every user of the
 * host (issue 25).
 *
 * Catalyst's git runs with its own settings, whatever the repository (Claude may have made it, with its own config
 * and hooks): no global or system config (checkpointEnv), no hooks (`core.hooksPath=/dev/null`, `--no-verify`), no
 * signing, no fsmonitor command, no automatic gc, no external diff or textconv. `GIT_CEILING_DIRECTORIES` is the
 * idea's folder, so git never finds a repository above `project/`. `.gitignore` is respected (`git add -A`).
 */

export const CATALYST_GIT_NAME = 'Catalyst';
export const CATALYST_GIT_EMAIL = 'catalyst@localhost';

/** The environment of every checkpoint command; `ideaDir` is the folder holding `project/`. */
export function checkpointEnv(path: string, ideaDir: string): Record<string, string> {
  return {
    PATH: path,
    LC_ALL: 'C',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_CONFIG_NOSYSTEM: '1',
    // GIT_CONFIG_GLOBAL is read from git 2.32 on; older gits look for ~/.gitconfig and $XDG_CONFIG_HOME/git/config,
    // and find neither.
    HOME: '/dev/null',
    XDG_CONFIG_HOME: '/dev/null',
    GIT_CEILING_DIRECTORIES: ideaDir,
    GIT_TERMINAL_PROMPT: '0',
    GIT_AUTHOR_NAME: CATALYST_GIT_NAME,
    GIT_AUTHOR_EMAIL: CATALYST_GIT_EMAIL,
    GIT_COMMITTER_NAME: CATALYST_GIT_NAME,
    GIT_COMMITTER_EMAIL: CATALYST_GIT_EMAIL,
  };
}

/**
 * Folders a checkpoint leaves out even where the project's `.gitignore` does not: installed dependencies and caches,
 * which a restore should not bring back (they are reinstalled) and whose thousands of files would swamp a
 * checkpoint (`npm install` without a `.gitignore`). Exclude pathspecs, so git does not even walk into them.
 */
export const LEFT_OUT_FOLDERS = [
  'node_modules',
  '.venv',
  'venv',
  '__pycache__',
  '.pytest_cache',
  '.mypy_cache',
  '.ruff_cache',
  '.next',
  '.nuxt',
  '.turbo',
  '.parcel-cache',
  '.cache',
  '.gradle',
];
const ADD_ALL = `G add -A -- . ${LEFT_OUT_FOLDERS.map((name) => `':(exclude,glob)**/${name}/**'`).join(' ')}`;

const PRELUDE = [
  'set -u',
  "command -v git >/dev/null 2>&1 || { echo '@@NOGIT'; exit 0; }",
  'G() { git -c core.hooksPath=/dev/null -c commit.gpgsign=false -c core.fsmonitor=false -c gc.auto=0 ' +
    '-c maintenance.auto=false -c core.quotepath=false -c advice.detachedHead=false "$@"; }',
  'fail() { printf \'@@FAIL=%s\\n\' "$1"; exit 3; }',
  // project/ replaced by a symlink (to ~, say) must not make Catalyst commit or restore elsewhere.
  '[ "$(pwd -P)" = "$(cd "$GIT_CEILING_DIRECTORIES" && pwd -P)/project" ] || fail \'project/ is not a folder of its own\'',
  // Catalyst's git runs only while the idea has no run, whose processes are all stopped: an index.lock now was left
  // by a git that was killed, and would block every checkpoint.
  "[ -f .git/index.lock ] && rm -f .git/index.lock && echo '@@STALELOCK'",
  // The commit message: the first line of stdin, `{"octal":"<byte> <byte> …"}` (gitCommand), made into a printf
  // format of `\ooo` escapes (POSIX printf has them; no `%` can be in it).
  'read_message() {',
  "  IFS= read -r cr_in || fail 'reading the commit message from stdin'",
  '  cr_in=${cr_in#*:\\"}; cr_in=${cr_in%\\"*}',
  "  case $cr_in in ''|*[!0-7\\ ]*) fail 'reading the commit message from stdin' ;; esac",
  "  cr_msg=''",
  '  for cr_o in $cr_in; do cr_msg="$cr_msg\\\\$cr_o"; done',
  '}',
  // What changed from $1 (a commit, or empty: the empty tree) to $2: one pass, --raw then --numstat, -z.
  'stat_of() {',
  '  cr_b=$1; [ -n "$cr_b" ] || cr_b=$(G hash-object -t tree /dev/null) || fail "git hash-object"',
  "  printf '@@STAT\\n'",
  '  G diff-tree -r -z -M --raw --numstat --no-ext-diff --no-textconv "$cr_b" "$2" -- || fail "git diff-tree"',
  '}',
  // Commits the index on top of HEAD (none when unborn) with the message read_message read, without hooks or a
  // porcelain's work: the commit is `cr_c`.
  'commit_index() {',
  "  cr_t=$(G write-tree) || fail 'git write-tree'",
  "  cr_h=$(G rev-parse -q --verify HEAD) || cr_h=''",
  '  if [ -n "$cr_h" ]; then',
  '    cr_c=$(printf "$cr_msg\\n" | G commit-tree "$cr_t" -p "$cr_h") || fail \'git commit-tree\'',
  '  else',
  '    cr_c=$(printf "$cr_msg\\n" | G commit-tree "$cr_t") || fail \'git commit-tree\'',
  '  fi',
  '  G update-ref -m \'catalyst: checkpoint\' HEAD "$cr_c" "$cr_h" || fail \'git update-ref\'',
  // A ref of its own: Claude's own reset or amend can leave the branch elsewhere, and gc never prunes it then.
  '  G update-ref "refs/catalyst/$cr_c" "$cr_c" || fail \'git update-ref\'',
  '}',
];

/**
 * A checkpoint: the commit message on stdin, `$1` the last checkpoint (empty for none), `$2` `1` to commit even when
 * nothing changed since `$1` (the idea's first checkpoint). `git init` only when `project/` has no `.git` of its
 * own. `@@LOSTBASE` when the repository no longer has `$1` (the change is then counted from nothing). Prints
 * `@@SAME` when there is nothing to record, else `@@COMMIT=` and what changed since `$1`.
 */
export const CHECKPOINT_SCRIPT = [
  ...PRELUDE,
  'read_message',
  "[ -e .git ] || { G init -q . >/dev/null || fail 'git init'; }",
  // The last checkpoint is gone (Claude made a new repository): counted from nothing, and said so.
  'if [ -n "$1" ] && ! G cat-file -e "$1^{commit}" 2>/dev/null; then set -- \'\' 1; echo \'@@LOSTBASE\'; fi',
  `${ADD_ALL} || fail 'git add'`,
  'if [ -n "$1" ] && [ "$2" != 1 ]; then',
  "  cr_t=$(G write-tree) || fail 'git write-tree'",
  '  [ "$cr_t" = "$(G rev-parse -q --verify "$1^{tree}")" ] && { echo \'@@SAME\'; exit 0; }',
  'fi',
  'commit_index',
  'printf \'@@COMMIT=%s\\n\' "$cr_c"',
  'stat_of "$1" "$cr_c"',
].join('\n');

/**
 * A restore: `project/` becomes exactly the tree of `$1` (files git tracks there; ignored files stay), recorded as a
 * new commit with the message on stdin; `$2` is the last checkpoint, which the change is counted against. The
 * caller makes a checkpoint of changes made outside a build first, so nothing is lost.
 */
export const RESTORE_SCRIPT = [
  ...PRELUDE,
  'read_message',
  "[ -e .git ] || fail 'project/ has no git repository'",
  'G cat-file -e "$1^{commit}" 2>/dev/null || { echo \'@@NOTFOUND\'; exit 0; }',
  `${ADD_ALL} || fail 'git add'`,
  'G read-tree -u --reset "$1" || fail \'git read-tree\'',
  'commit_index',
  'printf \'@@COMMIT=%s\\n\' "$cr_c"',
  'stat_of "$2" "$cr_c"',
].join('\n');

/** The unified diff from `$1` (empty: the empty tree) to `$2`, cut after `$3` bytes (binary files only named). */
export const DIFF_SCRIPT = [
  ...PRELUDE,
  "[ -e .git ] || fail 'project/ has no git repository'",
  'cr_b=$1; [ -n "$cr_b" ] || cr_b=$(G hash-object -t tree /dev/null) || fail "git hash-object"',
  // Checked before the pipe, whose status is head's.
  'G cat-file -e "$cr_b" 2>/dev/null && G cat-file -e "$2" 2>/dev/null || { echo \'@@NOTFOUND\'; exit 0; }',
  "printf '@@DIFF\\n'",
  // The prefixes pinned: a repository's own diff.noprefix or diff.mnemonicPrefix would change them.
  'G diff --no-ext-diff --no-textconv --no-color --src-prefix=a/ --dst-prefix=b/ -M "$cr_b" "$2" -- | head -c "$3"',
].join('\n');

/**
 * A file at a commit: `$1` the commit, `$2` its path in the tree (no leading `./`), `$3` the most bytes wanted.
 * `@@MISSING` when the commit has no such path, `@@TYPE=` when it is no file, else `@@SIZE=` and (when at most `$3`
 * bytes) `@@DATA` followed by the bytes.
 */
export const FILE_AT_SCRIPT = [
  ...PRELUDE,
  "[ -e .git ] || fail 'project/ has no git repository'",
  // The file's path comes on stdin like a commit message (a name can say as much as a message: never in argv); the
  // `x` keeps a path's trailing newlines from the command substitution.
  'read_message',
  'cr_p=$(printf "$cr_msg"; printf x); cr_p=${cr_p%x}',
  'cr_t=$(G cat-file -t "$1:$cr_p" 2>/dev/null) || { echo \'@@MISSING\'; exit 0; }',
  '[ "$cr_t" = blob ] || { printf \'@@TYPE=%s\\n\' "$cr_t"; exit 0; }',
  'cr_s=$(G cat-file -s "$1:$cr_p") || fail \'git cat-file -s\'',
  'printf \'@@SIZE=%s\\n\' "$cr_s"',
  '[ "$cr_s" -le "$2" ] || exit 0',
  "printf '@@DATA\\n'",
  'G cat-file blob "$1:$cr_p"',
].join('\n');

/** A checkpoint command: the argv of `/bin/sh -c` and the lines its stdin gets. */
export interface GitCommand {
  argv: string[];
  input: string[];
}

/**
 * `message` (for the scripts that commit, and FILE_AT_SCRIPT's path) goes on stdin as one JSON line, its UTF-8
 * bytes in octal, which a POSIX shell turns back into bytes without any tool (read_message); `args` are the
 * script's positional arguments, which `ps` shows every user of the VM: commits and numbers only.
 */
export function gitCommand(script: string, args: readonly string[], message?: string): GitCommand {
  const argv = ['/bin/sh', '-c', script, 'catalyst-git', ...args];
  if (message === undefined) return { argv, input: [] };
  const octal = [...Buffer.from(message, 'utf8')].map((byte) => byte.toString(8).padStart(3, '0'));
  return { argv, input: [JSON.stringify({ octal: octal.join(' ') })] };
}

/** FILE_AT_SCRIPT for `path` (project-relative, checked) at `commit`: the path on stdin, never in argv. */
export function fileAtCommand(commit: string, path: string, maxBytes: number): GitCommand {
  return gitCommand(FILE_AT_SCRIPT, [commit, String(maxBytes)], path);
}

/** What a checkpoint command printed, read: its `@@KEY=value` lines before the data, and the data's bytes. */
export interface ScriptOutput {
  lines: Map<string, string>;
  /** The bytes after the `@@STAT`, `@@DIFF` or `@@DATA` line (empty when there was none). */
  data: Buffer;
  hasData: boolean;
}

const DATA_MARKERS = ['@@STAT\n', '@@DIFF\n', '@@DATA\n'];

export function readScriptOutput(stdout: Buffer): ScriptOutput {
  const lines = new Map<string, string>();
  let offset = 0;
  while (offset < stdout.length) {
    const end = stdout.indexOf(0x0a, offset);
    if (end === -1) break;
    const line = stdout.subarray(offset, end + 1).toString('utf8');
    if (DATA_MARKERS.includes(line)) return { lines, data: stdout.subarray(end + 1), hasData: true };
    const match = /^@@([A-Z]+)(?:=(.*))?\n$/s.exec(line);
    if (match !== null) lines.set(match[1] ?? '', match[2] ?? '');
    offset = end + 1;
  }
  return { lines, data: Buffer.alloc(0), hasData: false };
}

/** The change of a `@@STAT` section (`git diff-tree --raw --numstat -z`, core/git-diff-stat.ts). */
export function readCheckpointChange(
  data: Buffer,
  checkpoint: { commit: string; parent: string | null; kind: CheckpointKind; restoredTo?: string },
): CheckpointChange {
  const stat = parseRawNumstat(data.toString('utf8'));
  const files = stat.files.slice(0, MAX_CHECKPOINT_FILES).map((file) => ({
    path: file.path,
    ...(file.from === undefined ? {} : { from: file.from }),
    status: file.status,
    insertions: file.insertions,
    deletions: file.deletions,
    ...(file.isBinary ? { binary: true as const } : {}),
  }));
  return {
    ...checkpoint,
    filesChanged: stat.files.length,
    insertions: stat.insertions,
    deletions: stat.deletions,
    files,
  };
}

/** A commit message's subject: `what`, then the first line of the person's message, cut to stay one short line. */
export function checkpointMessage(what: string, message: string | undefined, runId?: string): string {
  const firstLine =
    message
      ?.split('\n')
      .find((line) => line.trim() !== '')
      ?.trim()
      // git refuses a message holding a NUL byte.
      .replaceAll('\0', '') ?? '';
  // By code points: half of a surrogate pair has no UTF-8 bytes (it would become U+FFFD).
  const points = Array.from(firstLine);
  const cut = points.length > 100 ? `${points.slice(0, 99).join('')}…` : firstLine;
  const subject = cut === '' ? what : `${what}: ${cut}`;
  return runId === undefined ? subject : `${subject}\n\nCatalyst-Run: ${runId}`;
}
