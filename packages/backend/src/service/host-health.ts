import type { HostRegistry } from './host-registry.ts';
import type { HostHealth } from './idea-service.ts';
import { messageOf } from './idea-meta-changes.ts';

/** Every configured host's preflight, run side by side; a host that fails is reported, not thrown. */
export function checkHosts(hosts: HostRegistry): Promise<HostHealth[]> {
  return Promise.all(
    hosts.all().map(async (registered) => {
      const base = { name: registered.name, label: registered.host.label, isDefault: registered.isDefault };
      try {
        return { ...base, reachable: true, preflight: await registered.host.preflight() };
      } catch (error) {
        return { ...base, reachable: false, error: messageOf(error) };
      }
    }),
  );
}
