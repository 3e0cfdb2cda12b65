import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { CliError, usageError } from './cli-error.ts';
import type { ConnectionFlags } from './command.ts';

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
 * Flags first, then CATALYST_URL / CATALYST_TOKEN_FILE, then the defaults. The default token file follows
 * CATALYST_CONFIG_DIR as the server does (README, Configuration), so one environment serves both.
 */
export function resolveSettings(sources: SettingsSources): Settings {
  const { flags, env, homeDir, cwd } = sources;
  const url = parseOrigin(flags.url ?? nonEmpty(env.CATALYST_URL) ?? DEFAULT_URL);
  const configDir = expandHome(nonEmpty(env.CATALYST_CONFIG_DIR) ?? '~/.config/catalyst', homeDir);
  const tokenFile = flags.tokenFile ?? nonEmpty(env.CATALYST_TOKEN_FILE) ?? join(configDir, 'token');
  return { url, tokenFile: resolve(cwd, expandHome(tokenFile, homeDir)) };
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
