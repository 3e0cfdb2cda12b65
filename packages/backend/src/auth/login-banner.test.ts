import { describe, expect, it } from 'vitest';
import { loginBanner } from './login-banner.ts';

const token = 'a-token-that-is-long-enough-to-be-accepted-0123';
const tokenPath = '/home/me/.config/catalyst/token';
const terminal = { isTerminal: true, isTokenNew: false };

describe('loginBanner', () => {
  it('prints the real login link on a terminal when the token came from the token file, at every start (issue 40, item 3)', () => {
    const text = loginBanner({
      baseUrl: 'http://127.0.0.1:7455',
      token,
      tokenSource: 'file',
      tokenPath,
      output: terminal,
    });
    expect(text).toContain(`  http://127.0.0.1:7455/login#token=${token}\n`);
    expect(text).not.toContain('<CATALYST_TOKEN>');
  });

  it('prints the link into a log only when this start made the token; a restart names the token file', () => {
    const base = { baseUrl: 'http://127.0.0.1:7455', token, tokenSource: 'file', tokenPath } as const;
    const first = loginBanner({ ...base, output: { isTerminal: false, isTokenNew: true } });
    expect(first).toContain(`/login#token=${token}\n`);
    const again = loginBanner({ ...base, output: { isTerminal: false, isTokenNew: false } });
    expect(again).not.toContain(token);
    expect(again).toContain(`the access token in the file ${tokenPath}`);
    expect(again).toContain('  http://127.0.0.1:7455/login\n');
  });

  it('points to the login page and CATALYST_TOKEN, never echoing a token the person set', () => {
    const text = loginBanner({
      baseUrl: 'https://catalyst.example',
      token,
      tokenSource: 'environment',
      tokenPath,
      output: terminal,
    });
    expect(text).not.toContain(token);
    expect(text).not.toContain('#token=');
    expect(text).toContain('  https://catalyst.example/login\n');
    expect(text).toContain('the access token in CATALYST_TOKEN');
  });
});
