import { z } from 'zod';
import { CatalystError } from '../../core/catalyst-error.ts';
import { hostKeyHowTo, parseKnownHostsLine } from './host-key-pin.ts';
import {
  PoolLimitsSchema,
  TimingSchema,
  type SshPoolLimits,
  type SshTiming,
  parseHostConfigInput,
} from './ssh-limits.ts';
import { parseSshAliasConfig, type SshAliasHostConfig } from './ssh-alias-config.ts';
import type { SshIdentities } from './ssh-auth.ts';
import type { SshHop, SshHostSettings, SshRoute } from './ssh-route.ts';

/**
 * One SSH host as configured: where, who, how to authenticate, which host key to trust, and the pool's limits.
 * Parsed strictly (we own this shape); a missing host key is refused rather than trusted on first use.
 */

export const SshHostConfigSchema = z
  .strictObject({
    address: z.string().min(1),
    port: z.int().min(1).max(65_535).default(22),
    user: z.string().min(1),
    privateKeyPath: z.string().min(1).optional(),
    agentSocket: z.string().min(1).optional(),
    /** One known_hosts line, e.g. `[vm.example]:22 ssh-ed25519 AAAA…`. Required in practice: see parse. */
    hostKey: z.string().min(1).optional(),
    claudePath: z.string().startsWith('/', 'claudePath must be absolute').optional(),
    pool: PoolLimitsSchema.prefault({}),
    timing: TimingSchema.prefault({}),
  })
  .refine((config) => (config.privateKeyPath === undefined) !== (config.agentSocket === undefined), {
    message: 'set exactly one of privateKeyPath and agentSocket',
  });

/** A host given field by field. */
export type SshFieldsHostConfig = z.input<typeof SshHostConfigSchema>;
export type SshHostConfig = SshFieldsHostConfig | SshAliasHostConfig;

export type { SshHostSettings, SshPoolLimits, SshTiming };

/**
 * A host given field by field, or by its ~/.ssh/config alias (ssh-alias-config.ts). Throws INVALID_ARGUMENT listing
 * every problem at once, or SSH_HOST_KEY_MISSING with how to get the key.
 */
export function parseSshHostConfig(input: unknown): SshHostSettings {
  if (typeof input === 'object' && input !== null && 'sshAlias' in input) return parseSshAliasConfig(input);
  const config = parseHostConfigInput(SshHostConfigSchema, input);
  const label = `${config.user}@${config.address}:${config.port}`;
  if (config.hostKey === undefined) {
    throw new CatalystError(
      'SSH_HOST_KEY_MISSING',
      `no host key is configured for ${label}, and Catalyst does not trust a key on first use: ${hostKeyHowTo(config.address, config.port)}`,
      { details: { host: label } },
    );
  }
  const hop: SshHop = {
    label,
    hostName: config.address,
    port: config.port,
    user: config.user,
    identities: identitiesOf(config),
    hostKey: { kind: 'pinned', pin: parseKnownHostsLine(config.hostKey) },
    readyTimeoutMs: config.timing.readyTimeoutMs,
    keepaliveIntervalMs: config.timing.keepaliveIntervalMs,
    keepaliveCountMax: config.timing.keepaliveCountMax,
  };
  const route: SshRoute = { target: hop, jumps: [], ignored: [] };
  return {
    label,
    route: () => Promise.resolve(route),
    ...(config.claudePath === undefined ? {} : { claudePath: config.claudePath }),
    pool: config.pool,
    timing: config.timing,
  };
}

/** A key file named in the hosts file is the only identity offered; an agent offers all of its keys. */
function identitiesOf(config: {
  privateKeyPath?: string | undefined;
  agentSocket?: string | undefined;
}): SshIdentities {
  if (config.privateKeyPath !== undefined) {
    return { files: [config.privateKeyPath], areDefaultFiles: false, identitiesOnly: true };
  }
  if (config.agentSocket !== undefined) {
    return { files: [], areDefaultFiles: false, agentSocket: config.agentSocket, identitiesOnly: false };
  }
  throw new CatalystError('INVALID_ARGUMENT', 'set exactly one of privateKeyPath and agentSocket');
}
