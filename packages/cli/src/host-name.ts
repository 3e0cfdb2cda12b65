import { suggestHostName } from '@catalyst/protocol';
import { usageError } from './cli-error.ts';

/**
 * The name `catalyst hosts add` gives a host when no --name is given: the page's suggestion (protocol
 * suggestHostName), so `ops@build.example.com` is `build` in both. Pure.
 */
export function deriveHostName(target: string): string {
  const name = suggestHostName(target);
  if (name === '') throw usageError(`cannot make a host name of '${target}': give one with --name`);
  return name;
}
