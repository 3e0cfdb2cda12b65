import { describe, expect, it } from 'vitest';
import { browserNameOf } from './browser-name.ts';

describe('browserNameOf', () => {
  it('names the usual browsers and systems', () => {
    for (const [agent, name] of [
      [
        'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/150.0.0.0 Safari/537.36',
        'Chrome on Linux',
      ],
      [
        'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.0.0 Safari/537.36',
        'Chrome on Linux',
      ],
      ['Mozilla/5.0 (Android 15; Mobile; rv:140.0) Gecko/140.0 Firefox/140.0', 'Firefox on Android'],
      [
        'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/150.0.0.0 Mobile Safari/537.36',
        'Chrome on Android',
      ],
      [
        'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1',
        'Safari on iPhone',
      ],
      [
        'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Safari/605.1.15',
        'Safari on macOS',
      ],
      [
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/150.0.0.0 Safari/537.36 Edg/150.0.0.0',
        'Edge on Windows',
      ],
      [
        'Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/150.0.0.0 Safari/537.36',
        'Chrome on ChromeOS',
      ],
      [
        'Mozilla/5.0 (Macintosh; Intel Mac OS X 10.15; rv:140.0) Gecko/20100101 Firefox/140.0',
        'Firefox on macOS',
      ],
    ] as const) {
      expect(browserNameOf(agent), agent).toBe(name);
    }
  });

  it('says what little it knows of anything else', () => {
    expect(browserNameOf('Mozilla/5.0 (Windows NT 10.0) Unknown/1.0')).toBe('A browser on Windows');
    expect(browserNameOf('curl/8.5.0')).toBe('Unknown browser');
    expect(browserNameOf(undefined)).toBe('Unknown browser');
    expect(browserNameOf('')).toBe('Unknown browser');
  });
});
