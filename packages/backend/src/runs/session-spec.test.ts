import { describe, expect, it } from 'vitest';
import { sessionSpec, SESSION_LIFETIME_MS, type SessionSpecInput } from './session-spec.ts';

const input: SessionSpecInput = {
  mode: 'chat',
  cwd: '/home/dev/catalyst/ideas/idea-a/project',
  claudePath: '/home/dev/.local/bin/claude',
  maxDurationMs: 60_000,
};

describe('sessionSpec limits', () => {
  it('hands the configured lease, detached limit and idle limit to the session', () => {
    const { limits } = sessionSpec(
      { ...input, leaseMs: 3_000, detachedLimitMs: 120_000, warmIdleMs: 5_000 },
      undefined,
    );
    expect(limits).toEqual({
      maxRuntimeMs: SESSION_LIFETIME_MS,
      leaseMs: 3_000,
      detachedMs: 120_000,
      warmIdleMs: 5_000,
    });
  });

  it('leaves them to the host defaults when not configured', () => {
    expect(sessionSpec(input, undefined).limits).toEqual({ maxRuntimeMs: SESSION_LIFETIME_MS });
  });
});
