import { describe, expect, it } from 'vitest';
import { settlesWithin } from './settles-within.ts';

describe('settlesWithin', () => {
  it('tells a promise that settles in time, either way, from one that does not', async () => {
    expect(await settlesWithin(Promise.resolve(1), 1_000)).toBe(true);
    expect(await settlesWithin(Promise.reject(new Error('no')), 1_000)).toBe(true);
    expect(await settlesWithin(new Promise(() => undefined), 10)).toBe(false);
  });
});
