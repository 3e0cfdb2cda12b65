import { isCatalystError } from '../core/catalyst-error.ts';
import { sourceOf } from '../host/host-entry.ts';
import type { HostRegistry } from './host-registry.ts';
import type { HostHealth } from '../service/ports.ts';
import { messageOf } from '../ideas/idea-meta-changes.ts';

/**
 * Every configured host's preflight, run side by side; a host that fails is reported, not thrown. Reaching the
 * host's files first (its home) makes a host that cannot be reached (refused key, host key mismatch, nothing
 * listening, a timeout) unreachable with the SSH layer's own sentence, not a preflight that merely could not run.
 */
export function checkHosts(hosts: HostRegistry): Promise<HostHealth[]> {
  return Promise.all(
    hosts.all().map(async (registered) => {
      const addedAs = registered.entry.kind === 'ssh' ? registered.entry.addedAs : undefined;
      const base = {
        name: registered.name,
        label: registered.host.label,
        isDefault: registered.isDefault,
        source: sourceOf(registered.entry),
        ...(addedAs === undefined ? {} : { target: addedAs }),
        ideasRoot: registered.entry.ideasRoot,
        ...(registered.entry.claudePath === undefined ? {} : { claudePath: registered.entry.claudePath }),
      };
      try {
        await registered.host.homeDir();
        return { ...base, reachable: true, preflight: await registered.host.preflight() };
      } catch (error) {
        return { ...base, reachable: false, error: describeUnreachable(registered.name, error) };
      }
    }),
  );
}

/**
 * The SSH layer's sentence, but for a key known nowhere: its fingerprint and how to compare it belong to the key's
 * confirmation (the check), said once there, not here too (issue 40, item 6).
 */
function describeUnreachable(name: string, error: unknown): string {
  if (isCatalystError(error) && error.code === 'SSH_HOST_KEY_UNKNOWN') {
    return `its host key is new: confirm it by its fingerprint (Check on the Hosts page, or catalyst hosts check ${name})`;
  }
  return messageOf(error);
}
