import { commandFailure, runHostCommand } from '../host/host-command.ts';
import type { Host } from '../host/host.ts';

/**
 * An idea's data is its host user's alone, even on a VM other people log in to (issue 25, finding 3): the ideas
 * root and every idea folder are 0700, the files Catalyst writes in an idea folder (meta.json, the event history
 * and its side files) 0600, from the moment they are made. `project/` and what is in it keep the modes Claude's
 * tools give them: the idea folder around them already keeps everyone else out.
 */
export const PRIVATE_DIR = { mode: 0o700 };
export const PRIVATE_FILE = { mode: 0o600 };

/**
 * Folders and files an older Catalyst made with the umask's modes (0755, 0644), made private: the root (`$1`),
 * each idea folder in it, and the files directly in each (not `project/`). Group and others lose every permission
 * (`go-rwx`: 0755 becomes 0700, 0644 0600); the owner's own bits stay as they are, so tightening never makes
 * writable what was read-only. Symlinks are left alone (chmod would
 * follow them), and so is a root that is missing or not a real directory. Every chmod is tried; a failure (a file
 * of another user) is named on stderr and the exit status is 1.
 */
export const TIGHTEN_SCRIPT = [
  'set -u',
  '[ -d "$1" ] && [ ! -L "$1" ] || exit 0',
  'cd "$1" || exit 1',
  'cr_rc=0',
  'chmod go-rwx . || cr_rc=1',
  'for cr_d in idea-*; do',
  '  [ -d "$cr_d" ] && [ ! -L "$cr_d" ] || continue',
  '  chmod go-rwx "$cr_d" || cr_rc=1',
  '  for cr_f in "$cr_d"/* "$cr_d"/.[!.]* "$cr_d"/..?*; do',
  '    [ -f "$cr_f" ] && [ ! -L "$cr_f" ] || continue',
  '    chmod go-rwx "$cr_f" || cr_rc=1',
  '  done',
  'done',
  'exit "$cr_rc"',
].join('\n');

/** Makes the ideas under `root` on the host private (TIGHTEN_SCRIPT): Catalyst does it at start-up. */
export async function tightenIdeaModes(host: Host, root: string): Promise<void> {
  const result = await runHostCommand(host, {
    argv: ['/bin/sh', '-c', TIGHTEN_SCRIPT, 'catalyst-tighten', root],
    cwd: '/',
    timeoutMs: 60_000,
    maxStdoutBytes: 4096,
  });
  if (result.outcome.kind !== 'exited' || result.outcome.code !== 0) {
    throw commandFailure(`making the ideas in ${root} private`, result, 'FILE_ERROR');
  }
}
