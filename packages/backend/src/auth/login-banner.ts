import type { TokenSource } from './token-file.ts';
import { loginLink } from './routes-login.ts';

export interface LoginBannerOptions {
  /** Where a browser reaches Catalyst: CATALYST_PUBLIC_URL, else the address it listens on. */
  baseUrl: string;
  token: string;
  tokenSource: TokenSource;
  /** The token file, named where the link is not printed. */
  tokenPath: string;
  /** stdout is a terminal (a person reads it), not a log; and whether this start made the token. */
  output: { isTerminal: boolean; isTokenNew: boolean };
}

/**
 * What the start prints to log in (issue 40, item 3): the real login link whenever the token is Catalyst's own (its
 * token file), after a restart too, on a terminal. Where stdout is a log, a restart names the token file instead of
 * copying a live link into the log every time (the first start still prints it: it is how a person finds it). For a
 * token the person set in CATALYST_TOKEN, the login page and where the token is, never the token itself.
 */
export function loginBanner(options: LoginBannerOptions): string {
  const { baseUrl, token, tokenSource, output } = options;
  if (tokenSource === 'file' && (output.isTerminal || output.isTokenNew)) {
    return `\nCatalyst is running. Open this link to log in:\n\n  ${loginLink(baseUrl, token)}\n`;
  }
  const where = tokenSource === 'file' ? `the file ${options.tokenPath}` : 'CATALYST_TOKEN';
  return [
    '',
    `Catalyst is running. Open the login page and sign in with the access token in ${where}:`,
    '',
    `  ${baseUrl}/login`,
    '',
  ].join('\n');
}
