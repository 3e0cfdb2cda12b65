import { HOST_NAME_PATTERN } from '@catalyst/protocol';
import { usageError } from './cli-error.ts';

/**
 * The name `catalyst hosts add` gives a host when no --name is given: the alias, or the host of user@host[:port],
 * in lower case with every run of other characters a dash (`ops@Build.Example.com:2222` → `build-example-com`).
 * Pure.
 */
export function deriveHostName(target: string): string {
  const name = hostPartOf(target.trim())
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+/, '')
    .slice(0, 63)
    .replace(/-+$/, '');
  if (!HOST_NAME_PATTERN.test(name)) {
    throw usageError(`cannot make a host name of '${target}': give one with --name`);
  }
  return name;
}

/** `user@[::1]:2222` → `::1`, `user@host:2222` → `host`, `devbox` → `devbox`. */
function hostPartOf(target: string): string {
  const afterUser = target.slice(target.lastIndexOf('@') + 1);
  const bracketed = /^\[([^\]]*)\]/.exec(afterUser);
  if (bracketed !== null) return bracketed[1] ?? '';
  return afterUser.replace(/:\d*$/, '');
}
