import { MAX_CLIENT_FRAME_BYTES } from '@catalyst/protocol';
import { describe, expect, it } from 'vitest';
import { parseClientFrame } from './ws-frame-parse.ts';

const ID = 'idea-0123456789abcdef';
const text = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value));

describe('parseClientFrame', () => {
  it('accepts a valid frame', () => {
    expect(parseClientFrame(text({ type: 'subscribe', ideaId: ID, sinceSeq: 3 }), false)).toEqual({
      ok: true,
      frame: { type: 'subscribe', ideaId: ID, sinceSeq: 3 },
    });
  });

  it('answers bad JSON, a non-object and a binary frame with INVALID_FRAME', () => {
    expect(parseClientFrame(text('{"type": "subscribe"'), false)).toMatchObject({
      ok: false,
      error: {
        type: 'error',
        code: 'INVALID_FRAME',
        message: 'The frame is not valid JSON, so it was ignored.',
      },
    });
    const notObject = parseClientFrame(text('42'), false);
    expect(notObject).toMatchObject({ ok: false, error: { code: 'INVALID_FRAME' } });
    expect(notObject.ok ? '' : notObject.error.message).toContain('JSON object with a "type"');
    const binary = parseClientFrame(text({ type: 'cancel', ideaId: ID }), true);
    expect(binary).toMatchObject({ ok: false, error: { code: 'INVALID_FRAME' } });
    expect(binary.ok ? '' : binary.error.message).toContain('binary');
  });

  it('names an unknown type and echoes the requestId', () => {
    const result = parseClientFrame(text({ type: 'rm -rf', requestId: 'r1' }), false);
    expect(result).toEqual({
      ok: false,
      error: {
        type: 'error',
        code: 'INVALID_FRAME',
        message:
          'Unknown frame type "rm -rf"; expected one of: subscribe, unsubscribe, viewing, chat, build, cancel, mode, answer, dismiss, permission.',
        requestId: 'r1',
      },
    });
  });

  it('says which field is wrong, echoing a valid ideaId but never an invalid one', () => {
    const badId = parseClientFrame(text({ type: 'subscribe', ideaId: '../../etc', requestId: 'r2' }), false);
    expect(badId).toEqual({
      ok: false,
      error: {
        type: 'error',
        code: 'INVALID_FRAME',
        message: 'The subscribe frame is not valid: ideaId: not a valid idea id.',
        requestId: 'r2',
      },
    });
    const emptyMessage = parseClientFrame(text({ type: 'chat', ideaId: ID, message: '', extra: 1 }), false);
    expect(emptyMessage).toMatchObject({ error: { code: 'INVALID_FRAME', ideaId: ID } });
    if (!emptyMessage.ok) {
      expect(emptyMessage.error.message).toContain('message:');
      expect(emptyMessage.error.message).toContain('extra');
    }
  });

  it('refuses a frame over the limit before decoding it', () => {
    const big = Buffer.alloc(MAX_CLIENT_FRAME_BYTES + 1, 0x20);
    expect(parseClientFrame(big, false)).toMatchObject({ ok: false, error: { code: 'FRAME_TOO_LARGE' } });
    const justFits = Buffer.concat([
      text({ type: 'cancel', ideaId: ID }),
      Buffer.alloc(MAX_CLIENT_FRAME_BYTES - 100, 0x20),
    ]);
    expect(parseClientFrame(justFits.subarray(0, MAX_CLIENT_FRAME_BYTES), false).ok).toBe(true);
  });
});
