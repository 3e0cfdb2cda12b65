import { describe, expect, it } from 'vitest';
import { isSwitchingProtocols, locateHeadEnd, rewriteHead } from './answer-head.ts';

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

describe('isSwitchingProtocols', () => {
  it('passes a 101 head alone', () => {
    expect(isSwitchingProtocols('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n')).toBe(true);
    expect(isSwitchingProtocols('HTTP/1.1 101\r\n\r\n')).toBe(true);
  });

  it('refuses an interim answer, any other status, and a status line a browser might read otherwise', () => {
    for (const head of [
      'HTTP/1.1 100 Continue\r\n\r\n',
      'HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\n',
      'HTTP/1.1 403 Forbidden\r\n\r\n',
      'HTTP/1.1 1010 Switching\r\n\r\n',
      'HTTP/1.1 101x\r\n\r\n',
      'HTTP/1.0 101 Switching Protocols\r\n\r\n',
      'XHTTP/1.1 101 Switching Protocols\r\n\r\n',
      'junk\r\n\r\n',
      '\r\n\r\n',
    ]) {
      expect(isSwitchingProtocols(head), JSON.stringify(head)).toBe(false);
    }
  });

  it('reads the status of the head as rewritten, not of the bytes the app sent', () => {
    expect(isSwitchingProtocols(rewriteHead('HTTP/1.1 100 Continue\n', () => false))).toBe(false);
    expect(isSwitchingProtocols(rewriteHead('\rHTTP/1.1 101 X\nA: 1', () => false))).toBe(true);
  });
});
