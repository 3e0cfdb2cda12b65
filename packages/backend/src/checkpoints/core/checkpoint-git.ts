import { MAX_CHECKPOINT_FILES, type CheckpointChange, type CheckpointKind } from '@catalyst/protocol';
import { parseRawNumstat } from './git-diff-stat.ts';
import { parseMarkerLine, VM_MARKERS, type VmMarkerName } from '../../core/vm-markers.ts';
import { VM_SCRIPTS } from '../../core/vm-scripts.generated.ts';

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
 * The script of every checkpoint command (packages/backend/vm/checkpoint-git.sh), one action each: `checkpoint`
 * (`$1` the last checkpoint or empty, `$2` `1` to commit even when nothing changed; message on stdin), `restore` (`$1`
 * the commit, `$2` the last checkpoint; message on stdin), `diff` (`$1` from or empty, `$2` to, `$3` the most bytes),
 * `file-at` (`$1` the commit, `$2` the most bytes; the path on stdin). It prints `@@` lines (readScriptOutput).
 */
export const CHECKPOINT_GIT_SCRIPT = VM_SCRIPTS['checkpoint-git'];
export type GitAction = 'checkpoint' | 'restore' | 'diff' | 'file-at';

/** A checkpoint command: the argv of `/bin/sh -c` and the lines its stdin gets. */
export interface GitCommand {
  argv: string[];
  input: string[];
}

/**
 * `message` (for the actions that commit, and `file-at`'s path) goes on stdin as one JSON line, its UTF-8 bytes in
 * octal, which a POSIX shell turns back into bytes without any tool (read_message); `args` are the action's
 * positional arguments, which `ps` shows every user of the VM: commits and numbers only.
 */
export function gitCommand(action: GitAction, args: readonly string[], message?: string): GitCommand {
  const argv = ['/bin/sh', '-c', CHECKPOINT_GIT_SCRIPT, 'catalyst-git', action, ...args];
  if (message === undefined) return { argv, input: [] };
  const octal = [...Buffer.from(message, 'utf8')].map((byte) => byte.toString(8).padStart(3, '0'));
  return { argv, input: [JSON.stringify({ octal: octal.join(' ') })] };
}

/** `file-at` for `path` (project-relative, checked) at `commit`: the path on stdin, never in argv. */
export function fileAtCommand(commit: string, path: string, maxBytes: number): GitCommand {
  return gitCommand('file-at', [commit, String(maxBytes)], path);
}

/** What a checkpoint command printed, read: its `@@KEY=value` lines before the data, and the data's bytes. */
export interface ScriptOutput {
  /** By marker (core/vm-markers.ts): its value, or '' for one without. */
  lines: Map<VmMarkerName, string>;
  /** The bytes after the `@@STAT`, `@@DIFF` or `@@DATA` line (empty when there was none). */
  data: Buffer;
  hasData: boolean;
}

const DATA_MARKERS: ReadonlySet<VmMarkerName> = new Set([VM_MARKERS.stat, VM_MARKERS.diff, VM_MARKERS.data]);

export function readScriptOutput(stdout: Buffer): ScriptOutput {
  const lines = new Map<VmMarkerName, string>();
  let offset = 0;
  while (offset < stdout.length) {
    const end = stdout.indexOf(0x0a, offset);
    if (end === -1) break;
    const marker = parseMarkerLine(stdout.subarray(offset, end + 1).toString('utf8'));
    if (marker !== undefined && marker.words.length === 0 && marker.fields.size === 0) {
      if (marker.value === undefined && DATA_MARKERS.has(marker.name)) {
        return { lines, data: stdout.subarray(end + 1), hasData: true };
      }
      lines.set(marker.name, marker.value ?? '');
    }
    offset = end + 1;
  }
  return { lines, data: Buffer.alloc(0), hasData: false };
}

/** The change of a `@@STAT` section (`git diff-tree --raw --numstat -z`, checkpoints/core/git-diff-stat.ts). */
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
