import type { Api } from '@catalyst/protocol';
import type { HostsPort } from '../../service/ports.ts';
import type { ApiHandlers } from '../../server/api-binding.ts';

/** /api/hosts and /api/ssh-config: the hosts, and those added in the app (issue 28). */

type HostRoutes =
  'hosts' | 'getHost' | 'addHost' | 'updateHost' | 'deleteHost' | 'checkHost' | 'trustHostKey' | 'sshAliases';

export function hostHandlers(hosts: HostsPort): ApiHandlers<Pick<Api, HostRoutes>> {
  return {
    hosts: async () => ({ hosts: await hosts.hosts() }),
    getHost: ({ params }) => hosts.getHost(params.name),
    addHost: async ({ body }) => ({ host: await hosts.addHost(body) }),
    updateHost: async ({ params, body }) => ({ host: await hosts.updateHost(params.name, body) }),
    deleteHost: async ({ params, query }) => {
      await hosts.deleteHost(params.name, { confirm: query.confirm === 'true' });
    },
    checkHost: async ({ params }) => ({ check: await hosts.checkHost(params.name) }),
    trustHostKey: async ({ params, body }) => ({
      check: await hosts.trustHostKey(params.name, body.fingerprint),
    }),
    sshAliases: () => hosts.sshAliases(),
  };
}
