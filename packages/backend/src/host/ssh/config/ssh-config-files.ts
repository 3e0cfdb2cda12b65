import { readdir, readFile, stat } from 'node:fs/promises';
import { hostname, userInfo } from 'node:os';
import { join } from 'node:path';
import type { SshConfigSources } from './ssh-config-sources.ts';

/**
 * The resolver's sources from this machine: node:fs for the files, the password database for `~` (as ssh's
 * getpwuid), gethostname for %l. No Match exec runner: that stays an explicit opt-in of the caller.
 */
export function createLocalSshConfigSources(
  env: Readonly<Record<string, string | undefined>>,
): SshConfigSources {
  const user = userInfo();
  return {
    readFile: readConfigText,
    glob: globPaths,
    stat: async (path) => {
      const info = await stat(path);
      return { uid: info.uid, mode: info.mode };
    },
    env,
    localUser: { name: user.username, uid: user.uid, home: user.homedir },
    localHostname: hostname(),
  };
}

function errorCode(error: unknown): unknown {
  return typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
}

async function readConfigText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    // fopen() of a directory succeeds and reads nothing, so ssh treats a matched directory as an empty file.
    if (code === 'EISDIR') return '';
    throw error;
  }
}

const MAGIC = /[*?[]/;

/** glob(3) as ssh calls it (no flags but the tilde, done before): `*`, `?`, `[…]`, `\`; sorted; no dot files. */
export async function globPaths(pattern: string): Promise<string[]> {
  const segments = pattern.split('/').filter((segment) => segment !== '');
  let paths = [pattern.startsWith('/') ? '/' : '.'];
  for (const segment of segments) {
    const next: string[] = [];
    for (const base of paths) next.push(...(await expandSegment(base, segment)));
    paths = next;
  }
  const found = MAGIC.test(pattern) ? paths : await keepExisting(paths);
  return found.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

async function expandSegment(base: string, segment: string): Promise<string[]> {
  if (!MAGIC.test(segment)) return [join(base, segment.replace(/\\(.)/g, '$1'))];
  const matcher = segmentPattern(segment);
  const names = await readdir(base).catch(() => []);
  return names
    .filter((name) => (!name.startsWith('.') || segment.startsWith('.')) && matcher.test(name))
    .map((name) => join(base, name));
}

async function keepExisting(paths: readonly string[]): Promise<string[]> {
  const exists = await Promise.all(
    paths.map((path) =>
      stat(path).then(
        () => true,
        () => false,
      ),
    ),
  );
  return paths.filter((_path, index) => exists[index]);
}

/** One path segment of a glob as a RegExp; an unclosed `[` is a literal. */
function segmentPattern(segment: string): RegExp {
  let source = '';
  for (let i = 0; i < segment.length; i++) {
    const char = segment.charAt(i);
    if (char === '\\' && i + 1 < segment.length) source += escapeRegExp(segment.charAt(++i));
    else if (char === '*') source += '.*';
    else if (char === '?') source += '.';
    else if (char === '[') {
      const close = segment.indexOf(']', i + (segment.charAt(i + 1) === '!' ? 3 : 2));
      if (close < 0) source += '\\[';
      else {
        source += characterClass(segment.slice(i + 1, close));
        i = close;
      }
    } else source += escapeRegExp(char);
  }
  return new RegExp(`^${source}$`, 's');
}

function characterClass(body: string): string {
  const isNegated = body.startsWith('!');
  const members = (isNegated ? body.slice(1) : body).replace(/[\\\]^]/g, '\\$&');
  return `[${isNegated ? '^' : ''}${members}]`;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
