import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseServerData } from './lenient-parse.ts';

const FrameSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('a'), inner: z.strictObject({ n: z.number() }) }),
  z.strictObject({ type: z.literal('b') }),
]);

describe('parseServerData', () => {
  it('drops fields a newer server added, at any depth, and keeps the rest', () => {
    const sent = { type: 'a', extra: 1, inner: { n: 2, more: 'x' } };
    const parsed = parseServerData(FrameSchema, sent);
    expect(parsed.success && parsed.data).toEqual({ type: 'a', inner: { n: 2 } });
    expect(sent.extra).toBe(1);
  });

  it('still refuses a value that is wrong, not merely larger', () => {
    expect(parseServerData(FrameSchema, { type: 'a', extra: 1, inner: { n: 'two' } }).success).toBe(false);
    expect(parseServerData(FrameSchema, { type: 'c' }).success).toBe(false);
  });
});
