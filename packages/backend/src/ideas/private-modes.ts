import { commandFailure, runHostCommand } from '../host/host-command.ts';
import type { Host } from '../host/host.ts';
import { VM_SCRIPTS } from '../core/vm-scripts.generated.ts';

/**
 * An idea's data is its host user's alone, even on a VM other people log in to (issue 25, finding 3): the ideas
 * root and every idea folder are 0700, the files Catalyst writes in an idea folder (meta.json, the event history
 * and its side files) 0600, from the moment they are made. `project/` and what is in it keep the modes Claude's
 * tools give them: the idea folder around them already keeps everyone else out.
 */
export const PRIVATE_DIR = { mode: 0o700 };
export const PRIVATE_FILE = { mode: 0o600 };

/**
 * Makes folders and files an older Catalyst made with the umask's modes private: group and others lose every
 * permission of the root (`$1`), each idea folder in it and the files directly in each (packages/backend/vm/
 * tighten-ideas.sh). Exit status 1 when a chmod failed (named on stderr).
 */
export const TIGHTEN_SCRIPT = VM_SCRIPTS['tighten-ideas'];

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
