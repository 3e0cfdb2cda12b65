import { access, constants, readdir } from 'node:fs/promises';
import { homedir, userInfo } from 'node:os';
import { delimiter, isAbsolute, join } from 'node:path';
import { markerText, parseMarkerLine, VM_MARKERS } from '../core/vm-markers.ts';
import { NO_GIT_WARNING, type Preflight } from './host.ts';
import { runLocalCommand } from './local-command.ts';

/**
 * What this machine offers a run: where claude is (ssh-field-notes.md §9: the configured path, then `command -v`,
 * then where installers put it, then the user's login+interactive shell's PATH, then the CLI this project installed),
 * its version, and whether the run wrapper's tools are there.
 */

export interface LocalPreflightOptions {
  /** A configured path wins; if it is wrong, that is reported, not papered over by a search. */
  claudePath?: string;
  /**
   * The CLI this project installed (a devDependency of the test kit): the last resort, after every place a person's
   * own install would be. Only this machine has it, so only the local host is ever given it.
   */
  bundledClaudePath?: string;
  /** The environment to search with (PATH, HOME, SHELL). Default: this process's. */
  env?: NodeJS.ProcessEnv;
  /** The shell to ask for its login PATH; default $SHELL, then the passwd entry. */
  loginShell?: string;
  loginShellTimeoutMs?: number;
}

type Found = Pick<Preflight, 'claudePath' | 'foundVia'>;

// flock and tail: the session a run lives in on the host (core/vm-job-shell.ts).
const WRAPPER_TOOLS = ['setsid', 'mkfifo', 'grep', 'stat', 'sleep', 'flock', 'tail'] as const;
const VERSION_TIMEOUT_MS = 10_000;
const DEFAULT_LOGIN_SHELL_TIMEOUT_MS = 5_000;

async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function knownLocations(home: string): string[] {
  return ['.local/bin', '.claude/local', '.npm-global/bin', '.volta/bin', '.bun/bin']
    .map((dir) => join(home, dir, 'claude'))
    .concat('/usr/local/bin/claude');
}

/** ~/.nvm/versions/node/<v>/bin/claude, newest version first. */
async function nvmLocations(home: string): Promise<string[]> {
  const root = join(home, '.nvm', 'versions', 'node');
  const versions = await readdir(root).catch(() => []);
  return versions
    .sort((a, b) => b.localeCompare(a, 'en', { numeric: true }))
    .map((version) => join(root, version, 'bin', 'claude'));
}

async function firstExecutable(paths: readonly string[]): Promise<string | undefined> {
  for (const path of paths) if (await isExecutable(path)) return path;
  return undefined;
}

async function findOnPath(env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const result = await runLocalCommand('/bin/sh', ['-c', 'command -v claude'], { timeoutMs: 5_000, env });
  const path = result.stdout.trim();
  return result.code === 0 && isAbsolute(path) ? path : undefined;
}

async function findViaLoginShell(
  options: LocalPreflightOptions,
  env: NodeJS.ProcessEnv,
): Promise<string | undefined> {
  const shell = options.loginShell ?? env['SHELL'] ?? userInfo().shell ?? '/bin/sh';
  const timeoutMs = options.loginShellTimeoutMs ?? DEFAULT_LOGIN_SHELL_TIMEOUT_MS;
  const echo = `echo "${markerText(VM_MARKERS.path)}=$PATH"`;
  const result = await runLocalCommand(shell, ['-lic', echo], { timeoutMs, env }).catch(() => undefined);
  const path = result?.stdout
    .split('\n')
    .map(parseMarkerLine)
    .find((marker) => marker?.name === VM_MARKERS.path && marker.value !== undefined)?.value;
  if (path === undefined) return undefined;
  const dirs = path.split(delimiter).filter(isAbsolute);
  return firstExecutable(dirs.map((dir) => join(dir, 'claude')));
}

export async function discoverClaude(
  options: LocalPreflightOptions = {},
): Promise<Found & { problem?: string }> {
  const env = options.env ?? process.env;
  if (options.claudePath !== undefined) {
    if (isAbsolute(options.claudePath) && (await isExecutable(options.claudePath))) {
      return { claudePath: options.claudePath, foundVia: 'config' };
    }
    return { problem: `the configured claude path ${options.claudePath} is not an executable absolute path` };
  }
  const onPath = await findOnPath(env);
  if (onPath !== undefined) return { claudePath: onPath, foundVia: 'path' };
  const home = env['HOME'] ?? homedir();
  const known = await firstExecutable([...knownLocations(home), ...(await nvmLocations(home))]);
  if (known !== undefined) return { claudePath: known, foundVia: 'known-location' };
  const viaLogin = await findViaLoginShell(options, env);
  if (viaLogin !== undefined) return { claudePath: viaLogin, foundVia: 'login-shell' };
  const bundled = options.bundledClaudePath;
  if (bundled !== undefined && (await isExecutable(bundled)))
    return { claudePath: bundled, foundVia: 'bundled' };
  return {
    problem: 'claude was not found on PATH, in the usual install locations, or on the login shell PATH',
  };
}

async function readVersion(claudePath: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const result = await runLocalCommand(claudePath, ['--version'], {
    timeoutMs: VERSION_TIMEOUT_MS,
    env,
  }).catch(() => undefined);
  const version = result?.stdout.trim().split('\n')[0];
  return result?.code === 0 && version !== undefined && version !== '' ? version : undefined;
}

async function findWrapperProblems(env: NodeJS.ProcessEnv): Promise<string[]> {
  const problems: string[] = [];
  if (!(await isExecutable('/bin/sh'))) problems.push('/bin/sh is missing');
  const hasProc = await access('/proc/self/environ', constants.R_OK).then(
    () => true,
    () => false,
  );
  if (!hasProc) problems.push('/proc is not mounted (the wrapper finds a run by /proc/<pid>/environ)');
  const script = `for c in ${WRAPPER_TOOLS.join(' ')}; do command -v "$c" >/dev/null 2>&1 || echo "$c"; done`;
  const result = await runLocalCommand('/bin/sh', ['-c', script], { timeoutMs: 5_000, env }).catch(
    () => undefined,
  );
  const missing = result?.stdout.split('\n').filter((name) => name !== '') ?? [...WRAPPER_TOOLS];
  if (missing.length > 0) problems.push(`the run wrapper needs ${missing.join(', ')}, which is missing`);
  return problems;
}

export async function runLocalPreflight(options: LocalPreflightOptions = {}): Promise<Preflight> {
  const env = options.env ?? process.env;
  const [found, wrapperProblems, hasGit] = await Promise.all([
    discoverClaude(options),
    findWrapperProblems(env),
    runLocalCommand('/bin/sh', ['-c', 'command -v git'], { timeoutMs: 5_000, env }).then(
      (result) => result.code === 0,
      () => false,
    ),
  ]);
  const version = found.claudePath === undefined ? undefined : await readVersion(found.claudePath, env);
  const problems = [...(found.problem === undefined ? [] : [found.problem]), ...wrapperProblems];
  if (found.claudePath !== undefined && version === undefined) {
    problems.push(`${found.claudePath} --version did not answer`);
  }
  return {
    ...(found.claudePath === undefined ? {} : { claudePath: found.claudePath }),
    ...(found.foundVia === undefined ? {} : { foundVia: found.foundVia }),
    ...(version === undefined ? {} : { version }),
    path: env['PATH'] ?? '',
    canRunWrapper: wrapperProblems.length === 0,
    problems,
    ...(hasGit ? {} : { warnings: [NO_GIT_WARNING] }),
  };
}
