import { describe, expect, it } from 'vitest';
import { locateHeadEnd, rewriteHead } from './answer-head.ts';

const dropCatalystCookies = (name: string, value: string) =>
  name === 'set-cookie' && /^\s*catalyst_/i.test(value);

describe('locateHeadEnd', () => {
  it('ends the head at the first empty line, a line ending at \\n with an optional \\r', () => {
    for (const [text, headEnd, bodyStart] of [
      ['HTTP/1.1 101 X\r\nA: 1\r\n\r\nbody', 21, 24],
      ['HTTP/1.1 101 X\nA: 1\n\nbody', 19, 21],
      ['HTTP/1.1 101 X\r\nA: 1\n\r\nbody', 20, 23],
      ['HTTP/1.1 101 X\r\nA: 1\r\n\nbody', 21, 23],
    ] as const) {
      const end = locateHeadEnd(Buffer.from(text, 'latin1'));
      expect(end, JSON.stringify(text)).toEqual({ headEnd, bodyStart });
      expect(text.slice(bodyStart)).toBe('body');
    }
  });

  it('finds no end in a head still coming, or one with bare \\r only', () => {
    expect(locateHeadEnd(Buffer.from('HTTP/1.1 101 X\r\nA: 1\r\n'))).toBeUndefined();
    expect(locateHeadEnd(Buffer.from('HTTP/1.1 101 X\r\r\r\rA: 1\r\n\r'))).toBeUndefined();
    expect(locateHeadEnd(Buffer.from('HTTP/1.1 101 X\n\r\r\n'))).toBeUndefined();
  });

  it('resumes from where an earlier search stopped', () => {
    const bytes = Buffer.from('HTTP/1.1 101 X\r\nA: 1\r\n\r\n');
    expect(locateHeadEnd(bytes, bytes.length - 4)).toEqual({ headEnd: 21, bodyStart: 24 });
  });
});

describe('rewriteHead', () => {
  it('drops a header line however it was ended or folded, as a browser would have read it', () => {
    const head = [
      'HTTP/1.1 101 Switching Protocols\r\n',
      'Upgrade: websocket\r\n',
      'X-Before: 1\nSet-Cookie: catalyst_session=lf\r\n',
      'X-Cr: 1\rSet-Cookie: catalyst_session=cr\r\n',
      'Set-Cookie:\r\n\tcatalyst_session=folded\r\n',
      'set-cookie : catalyst_token=spaced\r\n',
      'Set-Cookie: theirs=1',
    ].join('');
    expect(rewriteHead(head, dropCatalystCookies)).toBe(
      'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nX-Before: 1\r\nX-Cr: 1\r\nSet-Cookie: theirs=1\r\n\r\n',
    );
  });

  it('writes every line back ended by \\r\\n, folded lines joined, no empty line inside', () => {
    const head = 'HTTP/1.1 101 X\nA: 1\r\r\nB: two\r\n  parts\n\nC: 3\r';
    expect(rewriteHead(head, () => false)).toBe('HTTP/1.1 101 X\r\nA: 1\r\nB: two parts\r\nC: 3\r\n\r\n');
  });

  it('keeps the status line and lines without a colon as they are', () => {
    expect(rewriteHead('HTTP/1.1 101 set-cookie: catalyst_x\r\njunk', dropCatalystCookies)).toBe(
      'HTTP/1.1 101 set-cookie: catalyst_x\r\njunk\r\n\r\n',
    );
  });
});
