import { z } from 'zod';
import { createLocalSshConfigSources } from './config/ssh-config-files.ts';
import { parseKnownHostsLine } from './host-key-pin.ts';
import { resolveAliasRoute } from './ssh-config-route.ts';
import { PoolLimitsSchema, TimingSchema, parseHostConfigInput } from './ssh-limits.ts';
import type { SshHostSettings } from './ssh-route.ts';

/**
 * A host named by its alias in the ~/.ssh/config of the user running Catalyst (or another file, like `ssh -F`): its
 * address, user, keys, jump hosts and known_hosts all come from there, resolved again at every new connection so an
 * edit of the file counts. `user` and `port` here win over the file's, as `ssh -l` and `-p` would; a `hostKey` here
 * is pinned and wins over known_hosts.
 */

export const SshAliasHostConfigSchema = z.strictObject({
  sshAlias: z.string().regex(/^[^\s'"`$;&|<>\\]{1,255}$/, 'must be a Host alias of ~/.ssh/config'),
  sshConfigFile: z.string().startsWith('/', 'sshConfigFile must be absolute').optional(),
  /** Catalyst's own known_hosts, where keys a person confirmed go: in its config dir. */
  knownHostsFile: z.string().startsWith('/', 'knownHostsFile must be absolute'),
  port: z.int().min(1).max(65_535).optional(),
  user: z.string().min(1).optional(),
  hostKey: z.string().min(1).optional(),
  claudePath: z.string().startsWith('/', 'claudePath must be absolute').optional(),
  pool: PoolLimitsSchema.prefault({}),
  timing: TimingSchema.prefault({}),
});

export type SshAliasHostConfig = z.input<typeof SshAliasHostConfigSchema>;

export function parseSshAliasConfig(input: unknown): SshHostSettings {
  const config = parseHostConfigInput(SshAliasHostConfigSchema, input);
  const pin = config.hostKey === undefined ? undefined : parseKnownHostsLine(config.hostKey);
  const overrides = {
    ...(config.user === undefined ? {} : { user: config.user }),
    ...(config.port === undefined ? {} : { port: config.port }),
  };
  return {
    label: config.sshAlias,
    route: () =>
      resolveAliasRoute({
        alias: config.sshAlias,
        sources: createLocalSshConfigSources(process.env),
        configFile: config.sshConfigFile,
        overrides,
        catalystKnownHosts: config.knownHostsFile,
        pin,
        defaults: config.timing,
      }),
    ...(config.claudePath === undefined ? {} : { claudePath: config.claudePath }),
    pool: config.pool,
    timing: config.timing,
  };
}
