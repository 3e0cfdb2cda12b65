import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { CliError, usageError } from './cli-error.ts';
import type { ConnectionFlags } from './command.ts';
import { readUrlFile } from './url-file.ts';

export const DEFAULT_URL = 'http://127.0.0.1:7433';

/** Where Catalyst listens (an origin: `http(s)://host:port`) and the file its access token is in. */
export interface Settings {
  url: string;
  tokenFile: string;
}

export interface SettingsSources {
  flags: ConnectionFlags;
  env: Readonly<Record<string, string | undefined>>;
  homeDir: string;
  cwd: string;
}

/**
 * Flags first, then CATALYST_URL / CATALYST_TOKEN_FILE, then CATALYST_PORT (on loopback, as the server listens by
 * default), then the address the Catalyst that wrote the token file left beside it (`url`), then the defaults. The
 * default token file follows CATALYST_CONFIG_DIR as the server does (README, Configuration), so one environment
 * serves both.
 */
export async function resolveSettings(sources: SettingsSources): Promise<Settings> {
  const { flags, env, homeDir, cwd } = sources;
  const configDir = expandHome(nonEmpty(env.CATALYST_CONFIG_DIR) ?? '~/.config/catalyst', homeDir);
  const tokenPath = flags.tokenFile ?? nonEmpty(env.CATALYST_TOKEN_FILE) ?? join(configDir, 'token');
  const tokenFile = resolve(cwd, expandHome(tokenPath, homeDir));
  const given = flags.url ?? nonEmpty(env.CATALYST_URL) ?? urlOfPort(nonEmpty(env.CATALYST_PORT));
  const url = given ?? (await readUrlFile(join(dirname(tokenFile), 'url'))) ?? DEFAULT_URL;
  return { url: parseOrigin(url), tokenFile };
}

/** CATALYST_PORT as the server reads it; 0 (any free port) says nothing of where Catalyst is. */
function urlOfPort(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const port = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!(port >= 0 && port <= 65_535)) {
    throw usageError(`CATALYST_PORT '${text}' must be a whole number from 0 to 65535`);
  }
  return port === 0 ? undefined : `http://127.0.0.1:${String(port)}`;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

function expandHome(path: string, homeDir: string): string {
  if (path === '~') return homeDir;
  return path.startsWith('~/') ? join(homeDir, path.slice(2)) : path;
}

/** Catalyst is served at an origin (docs/security.md: CATALYST_PUBLIC_URL has no path either). */
function parseOrigin(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw usageError(`the Catalyst URL '${text}' is not a URL; it looks like ${DEFAULT_URL}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw usageError(`the Catalyst URL '${text}' must start with http:// or https://`);
  }
  if (url.pathname !== '/' || url.search !== '' || url.hash !== '') {
    throw usageError(`the Catalyst URL '${text}' has a path; give only its origin, like ${DEFAULT_URL}`);
  }
  return url.origin;
}

/** The token Catalyst wrote at its first start (mode 0600), without the file's trailing newline. */
export async function readToken(tokenFile: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(tokenFile, 'utf8');
  } catch (error) {
    throw new CliError(
      'TOKEN_MISSING',
      `Cannot read Catalyst’s access token from ${tokenFile} (${describeFsError(error)}): start Catalyst once on this machine (./scripts/start), or pass --token-file.`,
      { cause: error },
    );
  }
  const token = text.trim();
  if (token === '') throw new CliError('TOKEN_MISSING', `The token file ${tokenFile} is empty.`);
  return token;
}

function describeFsError(error: unknown): string {
  if (error instanceof Error && 'code' in error && typeof error.code === 'string') {
    return error.code === 'ENOENT' ? 'no such file' : error.code;
  }
  return 'unreadable';
}
