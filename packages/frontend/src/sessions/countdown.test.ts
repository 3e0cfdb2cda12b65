import { describe, expect, it } from 'vitest';
import { formatCountdown, pairingDeadline } from './countdown.ts';

describe('formatCountdown', () => {
  it('reads as minutes and seconds, rounded up, never below zero', () => {
    expect(formatCountdown(600_000)).toBe('10:00');
    expect(formatCountdown(599_001)).toBe('10:00');
    expect(formatCountdown(599_000)).toBe('9:59');
    expect(formatCountdown(5_000)).toBe('0:05');
    expect(formatCountdown(1)).toBe('0:01');
    expect(formatCountdown(0)).toBe('0:00');
    expect(formatCountdown(-3_000)).toBe('0:00');
  });
});

describe('pairingDeadline', () => {
  const lifetimeMs = 600_000;
  const receivedAt = Date.parse('2030-01-01T12:00:00.000Z');

  it('is the server’s expiry when the clocks agree', () => {
    expect(pairingDeadline({ expiresAt: '2030-01-01T12:10:00.000Z', receivedAt, lifetimeMs })).toBe(
      receivedAt + lifetimeMs,
    );
  });

  it('is never later than the code lives, whichever clock is off', () => {
    // This device's clock five minutes behind the server's: the code still ends 10 minutes from now.
    expect(pairingDeadline({ expiresAt: '2030-01-01T12:15:00.000Z', receivedAt, lifetimeMs })).toBe(
      receivedAt + lifetimeMs,
    );
    // Five minutes ahead: the count ends early rather than late.
    expect(pairingDeadline({ expiresAt: '2030-01-01T12:05:00.000Z', receivedAt, lifetimeMs })).toBe(
      Date.parse('2030-01-01T12:05:00.000Z'),
    );
  });
});
