import { spentUsd, type IdeaMeta } from '@catalyst/protocol';
import type { AutopilotsOptions } from './autopilots.ts';
import type { HostRegistry } from '../hosts/host-registry.ts';

/** What the autopilots read and write of an idea's meta.json, on the host that holds it. */
export function autopilotIdeaMeta(
  hosts: HostRegistry,
  locate: (id: string) => Promise<{ host: string; meta: IdeaMeta }>,
): Pick<AutopilotsOptions, 'ideaBudgetAllows' | 'questionPolicyOf' | 'mark'> {
  return {
    ideaBudgetAllows: async (id) => {
      const { meta } = await locate(id);
      return meta.budgetUsd === undefined || spentUsd(meta) < meta.budgetUsd;
    },
    questionPolicyOf: async (id) => (await locate(id)).meta.questionPolicy,
    mark: async (id, autopilotId) => {
      const store = await hosts.store((await locate(id)).host);
      await store.update(id, (meta) => {
        const { autopilotId: _running, ...rest } = meta;
        return autopilotId === undefined ? rest : { ...rest, autopilotId };
      });
    },
  };
}
