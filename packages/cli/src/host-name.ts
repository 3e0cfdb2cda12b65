import { hostNameSlug, machineOfTarget } from '@catalyst/protocol';
import { usageError } from './cli-error.ts';

/**
 * The name `catalyst hosts add` gives a host when no --name is given: the alias, or the whole host of
 * user@host[:port], as a name (`ops@Build.Example.com:2222` → `build-example-com`). Pure.
 */
export function deriveHostName(target: string): string {
  const name = hostNameSlug(machineOfTarget(target.trim()));
  if (name === '') throw usageError(`cannot make a host name of '${target}': give one with --name`);
  return name;
}
