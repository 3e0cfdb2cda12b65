import { describe, expect, it } from 'vitest';
import { createPairingCodes } from './pairing-codes.ts';

const MINUTE = 60_000;

function withClock(options: { maxLive?: number } = {}) {
  const clock = { at: Date.parse('2030-01-01T00:00:00.000Z') };
  const codes = createPairingCodes({ now: () => clock.at, ...options });
  return { clock, codes };
}

describe('pairing codes', () => {
  it('are 256 random bits in base64url, a new one each time, valid for 10 minutes', () => {
    const { clock, codes } = withClock();
    const made = Array.from({ length: 50 }, () => codes.create());
    for (const { code, expiresAt } of made) {
      expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(code, 'base64url')).toHaveLength(32);
      expect(expiresAt).toBe(clock.at + 10 * MINUTE);
    }
    expect(new Set(made.map(({ code }) => code)).size).toBe(made.length);
  });

  it('work once: the second redemption of a code is refused, as an unknown code is', () => {
    const { codes } = withClock();
    const { code } = codes.create();
    expect(codes.redeem('an-unknown-code')).toBe(false);
    expect(codes.redeem('')).toBe(false);
    expect(codes.redeem(code)).toBe(true);
    expect(codes.redeem(code)).toBe(false);
  });

  it('keep each code apart: redeeming one leaves the others good', () => {
    const { codes } = withClock();
    const first = codes.create().code;
    const second = codes.create().code;
    expect(codes.redeem(second)).toBe(true);
    expect(codes.redeem(first)).toBe(true);
  });

  it('are refused from the moment they expire', () => {
    const { clock, codes } = withClock();
    const early = codes.create().code;
    const late = codes.create().code;
    clock.at += 10 * MINUTE - 1;
    expect(codes.redeem(early)).toBe(true);
    clock.at += 1;
    expect(codes.redeem(late)).toBe(false);
  });

  it('live at most `maxLive` at once: a new one past that ends the oldest', () => {
    const { codes } = withClock({ maxLive: 3 });
    const [oldest, ...rest] = Array.from({ length: 4 }, () => codes.create().code);
    expect(codes.redeem(oldest ?? '')).toBe(false);
    for (const code of rest) expect(codes.redeem(code)).toBe(true);
  });

  it('refuse a code that only starts like a live one, or has different case', () => {
    const { codes } = withClock();
    const { code } = codes.create();
    expect(codes.redeem(code.slice(0, -1))).toBe(false);
    expect(codes.redeem(`${code}A`)).toBe(false);
    expect(codes.redeem(code.toUpperCase() === code ? code.toLowerCase() : code.toUpperCase())).toBe(false);
    expect(codes.redeem(code)).toBe(true);
  });
});
