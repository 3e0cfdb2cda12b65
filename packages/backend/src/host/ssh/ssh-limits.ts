import { z } from 'zod';
import { CatalystError } from '../../core/catalyst-error.ts';

/** An SSH host's pool limits and timings, the same whether it is given field by field or by its alias. */

const positiveInt = (fallback: number, max: number) => z.int().min(1).max(max).default(fallback);

export const PoolLimitsSchema = z.strictObject({
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

export const TimingSchema = z.strictObject({
  readyTimeoutMs: positiveInt(20_000, 600_000),
  /** 15 s × 3 detects a dead server in 45–60 s; ssh2's default (0) never does (§5). */
  keepaliveIntervalMs: z.int().min(0).default(15_000),
  keepaliveCountMax: positiveInt(3, 100),
  /** For preflight's short commands, e.g. a login shell asked for its PATH. */
  probeTimeoutMs: positiveInt(15_000, 600_000),
});

export type SshPoolLimits = z.output<typeof PoolLimitsSchema>;
export type SshTiming = z.output<typeof TimingSchema>;

/** A host's config (either form) parsed strictly: INVALID_ARGUMENT listing every problem at once. */
export function parseHostConfigInput<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    throw new CatalystError(
      'INVALID_ARGUMENT',
      `invalid SSH host config:\n${z.prettifyError(parsed.error)}`,
      {
        cause: parsed.error,
      },
    );
  }
  return parsed.data;
}
