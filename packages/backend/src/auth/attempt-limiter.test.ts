import { describe, expect, it } from 'vitest';
import { clientKeyOf, createAttemptLimiter, type AttemptLimiterOptions } from './attempt-limiter.ts';

const SECOND = 1_000;
const WINDOW = 15 * 60 * SECOND;

function limiterOnClock(options: AttemptLimiterOptions = {}) {
  const clock = { now: 0 };
  const limiter = createAttemptLimiter({ ...options, now: () => clock.now });
  const fail = (address: string, times = 1) => {
    const outcomes = Array.from({ length: times }, () => limiter.recordFailure(address));
    return outcomes.filter((outcome) => outcome.isNewlyThrottled).length;
  };
  return { clock, limiter, fail };
}

describe('createAttemptLimiter', () => {
  it('lets five failures through, then makes the address wait 5 s, doubling up to 60 s', () => {
    const { clock, limiter, fail } = limiterOnClock();
    fail('10.0.0.1', 4);
    expect(limiter.check('10.0.0.1')).toEqual({ isAllowed: true });
    expect(fail('10.0.0.1')).toBe(1);
    expect(limiter.check('10.0.0.1')).toEqual({ isAllowed: false, retryAfterMs: 5 * SECOND });
    const waits: number[] = [];
    for (let failure = 6; failure <= 10; failure++) {
      const verdict = limiter.check('10.0.0.1');
      clock.now += verdict.isAllowed ? 0 : verdict.retryAfterMs;
      expect(limiter.check('10.0.0.1')).toEqual({ isAllowed: true });
      expect(fail('10.0.0.1')).toBe(0);
      const after = limiter.check('10.0.0.1');
      waits.push(after.isAllowed ? 0 : after.retryAfterMs / SECOND);
    }
    expect(waits).toEqual([10, 20, 40, 60, 60]);
  });

  it('keeps each address to itself: a throttled one leaves another allowed', () => {
    const { limiter, fail } = limiterOnClock();
    fail('10.0.0.1', 5);
    expect(limiter.check('10.0.0.1').isAllowed).toBe(false);
    expect(limiter.check('10.0.0.2')).toEqual({ isAllowed: true });
    expect(limiter.check(undefined)).toEqual({ isAllowed: true });
  });

  it('reports the throttling once a window, and forgets an address a window after its last failure', () => {
    const { clock, limiter, fail } = limiterOnClock();
    expect(fail('10.0.0.1', 5)).toBe(1);
    clock.now += 5 * SECOND;
    expect(fail('10.0.0.1', 3)).toBe(0);
    clock.now += WINDOW;
    expect(limiter.check('10.0.0.1')).toEqual({ isAllowed: true });
    expect(fail('10.0.0.1', 4)).toBe(0);
    expect(limiter.check('10.0.0.1')).toEqual({ isAllowed: true });
    expect(fail('10.0.0.1')).toBe(1);
  });

  it('remembers at most maxAddresses, forgetting the one that failed longest ago among those not waiting', () => {
    const { limiter, fail } = limiterOnClock({ maxAddresses: 3 });
    fail('10.0.0.1', 5);
    for (const address of ['10.0.0.2', '10.0.0.3', '10.0.0.4']) fail(address);
    expect(limiter.size).toBe(3);
    // A guesser rotating through new addresses does not flush its own waiting one.
    expect(limiter.check('10.0.0.1').isAllowed).toBe(false);
    fail('10.0.0.3', 4);
    fail('10.0.0.5');
    expect(limiter.check('10.0.0.3').isAllowed).toBe(false);
    expect(limiter.check('10.0.0.1').isAllowed).toBe(false);
    expect(limiter.size).toBe(3);
  });
});

describe('clientKeyOf', () => {
  it('counts IPv4 as is, mapped IPv4 as IPv4, and IPv6 per /64', () => {
    expect(clientKeyOf('192.0.2.7')).toBe('192.0.2.7');
    expect(clientKeyOf('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(clientKeyOf('2001:db8:0:1::5')).toBe('2001:db8:0:1::/64');
    expect(clientKeyOf('2001:0DB8:0000:0001:ffff::9')).toBe('2001:db8:0:1::/64');
    expect(clientKeyOf('::1')).toBe('0:0:0:0::/64');
    expect(clientKeyOf('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(clientKeyOf(undefined)).toBe('unknown');
  });
});
