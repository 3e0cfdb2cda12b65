import { z } from 'zod';
import { CatalystError } from '../../core/catalyst-error.ts';
import { hostKeyHowTo, parseKnownHostsLine } from './host-key-pin.ts';
import type { SshIdentities } from './ssh-auth.ts';
import type { SshHop, SshRoute } from './ssh-route.ts';

/**
 * One SSH host as configured: where, who, how to authenticate, which host key to trust, and the pool's limits.
 * Parsed strictly (we own this shape); a missing host key is refused rather than trusted on first use.
 */

const positiveInt = (fallback: number, max: number) => z.int().min(1).max(max).default(fallback);

const PoolLimitsSchema = z.strictObject({
  /** Long runs per connection: sshd's MaxSessions defaults to 10, and 2 stay free for SFTP and kills (§4). */
  maxRunsPerConnection: positiveInt(8, 64),
  maxConnections: positiveInt(4, 32),
  /** Below MaxStartups' 10 unauthenticated connections, past which sshd drops new ones at random (§4). */
  maxHandshakes: positiveInt(3, 10),
  connectAttempts: positiveInt(3, 10),
  connectBackoffMs: z.int().min(0).max(60_000).default(250),
  idleMs: z
    .int()
    .min(0)
    .default(5 * 60_000),
});

const TimingSchema = z.strictObject({
  readyTimeoutMs: positiveInt(20_000, 600_000),
  /** 15 s × 3 detects a dead server in 45–60 s; ssh2's default (0) never does (§5). */
  keepaliveIntervalMs: z.int().min(0).default(15_000),
  keepaliveCountMax: positiveInt(3, 100),
  /** For preflight's short commands, e.g. a login shell asked for its PATH. */
  probeTimeoutMs: positiveInt(15_000, 600_000),
});

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

export type SshHostConfig = z.input<typeof SshHostConfigSchema>;
export type SshPoolLimits = z.output<typeof PoolLimitsSchema>;
export type SshTiming = z.output<typeof TimingSchema>;

export interface SshHostSettings {
  /** `user@address:port`, for logs and error messages. */
  readonly label: string;
  /** The route of a new connection (ssh-route.ts). */
  route(): Promise<SshRoute>;
  readonly claudePath?: string;
  readonly pool: SshPoolLimits;
  readonly timing: SshTiming;
}

/** Throws INVALID_ARGUMENT listing every problem at once, or SSH_HOST_KEY_MISSING with how to get the key. */
export function parseSshHostConfig(input: unknown): SshHostSettings {
  const parsed = SshHostConfigSchema.safeParse(input);
  if (!parsed.success) {
    throw new CatalystError(
      'INVALID_ARGUMENT',
      `invalid SSH host config:\n${z.prettifyError(parsed.error)}`,
      {
        cause: parsed.error,
      },
    );
  }
  const config = parsed.data;
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
