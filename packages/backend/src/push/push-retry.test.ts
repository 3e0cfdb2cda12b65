import { describe, expect, it } from 'vitest';
import { classifyPushAnswer, parseRetryAfter, retryDelayMs } from './push-retry.ts';

const NOW = Date.parse('2026-03-01T12:00:00Z');
const policy = { baseDelayMs: 1000, maxDelayMs: 60_000, maxAttempts: 4 };

describe('classifyPushAnswer', () => {
  it('tells delivered, ended, worth retrying and refused apart', () => {
    expect(classifyPushAnswer(201, undefined, NOW)).toEqual({ kind: 'delivered' });
    expect(classifyPushAnswer(404, undefined, NOW)).toEqual({ kind: 'gone' });
    expect(classifyPushAnswer(410, undefined, NOW)).toEqual({ kind: 'gone' });
    expect(classifyPushAnswer(429, '30', NOW)).toEqual({ kind: 'retry', retryAfterMs: 30_000 });
    expect(classifyPushAnswer(503, undefined, NOW)).toEqual({ kind: 'retry' });
    for (const status of [400, 401, 403, 413])
      expect(classifyPushAnswer(status, '5', NOW).kind).toBe('refused');
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds and HTTP dates, and ignores anything else', () => {
    expect(parseRetryAfter(' 120 ', NOW)).toBe(120_000);
    expect(parseRetryAfter('Sun, 01 Mar 2026 12:00:45 GMT', NOW)).toBe(45_000);
    expect(parseRetryAfter('Sun, 01 Mar 2026 11:00:00 GMT', NOW)).toBe(0);
    expect(parseRetryAfter('soon', NOW)).toBeUndefined();
    expect(parseRetryAfter('-5', NOW)).toBeUndefined();
    expect(parseRetryAfter(undefined, NOW)).toBeUndefined();
  });
});

describe('retryDelayMs', () => {
  it('doubles from the base, takes Retry-After as a floor, and stops after the last attempt', () => {
    expect([1, 2, 3].map((attempt) => retryDelayMs(attempt, { kind: 'retry' }, policy))).toEqual([
      1000, 2000, 4000,
    ]);
    expect(retryDelayMs(4, { kind: 'retry' }, policy)).toBeUndefined();
    expect(retryDelayMs(1, { kind: 'retry', retryAfterMs: 7000 }, policy)).toBe(7000);
    expect(retryDelayMs(3, { kind: 'retry', retryAfterMs: 10 }, policy)).toBe(4000);
  });

  it('gives up rather than wait longer than the longest wait, or come back before Retry-After', () => {
    expect(retryDelayMs(1, { kind: 'retry', retryAfterMs: 3_600_000 }, policy)).toBeUndefined();
    expect(retryDelayMs(3, { kind: 'retry' }, { ...policy, maxDelayMs: 3000 })).toBeUndefined();
  });
});
