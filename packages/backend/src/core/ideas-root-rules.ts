import { posix } from 'node:path';
import { HostIdeasRootSchema } from '@catalyst/protocol';

/**
 * Where a host's ideas may live (issue 39, item 3). At every start Catalyst makes the ideas root private (`chmod
 * go-rwx`) and empties its `.trash`: given a home, `/` or `/tmp`, that would be the person's own `~/.trash` and
 * their home's mode, or, as root, a folder every user of the VM needs. So the root is a folder of its own: neither
 * the home nor one of its ancestors, nor a folder the system or other users share. (What it holds is checked on the
 * host, where the home is known: vm/claim-ideas-root.sh.)
 */

/** Folders of the system, or shared by its users: never an ideas root, nor anything an ideas root is in. */
const SHARED_FOLDERS = new Set(
  [
    '/',
    '/tmp',
    '/var/tmp',
    '/dev/shm',
    '/home',
    '/Users',
    '/root',
    '/etc',
    '/usr',
    '/var',
    '/opt',
    '/srv',
  ].concat(['/mnt', '/media', '/run', '/bin', '/sbin', '/lib', '/lib64', '/boot', '/dev', '/proc', '/sys']),
);

/** Why the root (as configured: absolute or `~/…`) cannot be an ideas root, or undefined when it may. */
export function ideasRootProblem(root: string): string | undefined {
  if (root === '~' || root.startsWith('~/')) {
    const below = posix.normalize(`/${root.slice(1)}`);
    return below === '/' ? 'is the home itself' : undefined;
  }
  if (!root.startsWith('/')) return 'must be absolute or start with ~/ (the host user’s home)';
  const normal = posix.normalize(root).replace(/(.)\/+$/, '$1');
  return SHARED_FOLDERS.has(normal) ? 'is a folder of the system or shared by its users' : undefined;
}

/**
 * As ideasRootProblem, once `~/` is resolved and the host user's home known: the root is neither the home nor an
 * ancestor of it.
 */
export function resolvedIdeasRootProblem(root: string, home: string): string | undefined {
  const normal = posix.normalize(root).replace(/(.)\/+$/, '$1');
  const normalHome = posix.normalize(home).replace(/(.)\/+$/, '$1');
  if (normal === normalHome) return 'is the home itself';
  if (normal === '/' || normalHome.startsWith(`${normal}/`)) return 'holds the home';
  return ideasRootProblem(normal);
}

/** The sentence a person reads: what is wrong, and what to choose instead. */
export function describeIdeasRootProblem(root: string, problem: string): string {
  return `The ideas folder ${root} ${problem}: Catalyst makes it private and empties its .trash, so give it a folder of its own, e.g. ~/catalyst/ideas.`;
}

/** HostIdeasRootSchema, and none of the folders ideasRootProblem refuses: for the config (env and file). */
export const SafeIdeasRootSchema = HostIdeasRootSchema.superRefine((root, ctx) => {
  const problem = ideasRootProblem(root);
  if (problem !== undefined)
    ctx.addIssue({ code: 'custom', message: describeIdeasRootProblem(root, problem) });
});
