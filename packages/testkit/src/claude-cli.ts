import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { z } from 'zod';

/**
 * Runs the real claude CLI against the scripted model: the `@anthropic-ai/claude-code` devDependency, or the
 * package that CLAUDE_PACKAGE_ENV names (scripts/test-cli-drift installs the newest published CLI and points every
 * test at it).
 */
export const CLAUDE_PACKAGE_ENV = 'CATALYST_TEST_CLAUDE_PACKAGE';

const ClaudePackageSchema = z.object({ name: z.literal('@anthropic-ai/claude-code'), version: z.string() });

/** The directory of the `@anthropic-ai/claude-code` package the tests run. */
export function claudePackageDir(): string {
  const override = process.env[CLAUDE_PACKAGE_ENV];
  if (override !== undefined && override !== '') {
    if (!isAbsolute(override)) throw new Error(`${CLAUDE_PACKAGE_ENV} must be an absolute path: ${override}`);
    return override;
  }
  const require = createRequire(import.meta.url);
  return dirname(require.resolve('@anthropic-ai/claude-code/package.json'));
}

export function claudeBinaryPath(): string {
  return join(claudePackageDir(), 'bin', 'claude.exe');
}

/** The version of the CLI the tests run, from its package.json (e.g. `2.1.331`). */
export function claudeVersion(): string {
  const path = join(claudePackageDir(), 'package.json');
  return ClaudePackageSchema.parse(JSON.parse(readFileSync(path, 'utf8'))).version;
}

export interface TempDir {
  path: string;
  remove(): Promise<void>;
}

export async function createTempDir(prefix: string): Promise<TempDir> {
  const path = await mkdtemp(join(tmpdir(), `catalyst-${prefix}-`));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

export interface ClaudeEnvOptions {
  /** An isolated HOME: sessions, settings and `.claude.json` live there, never in the developer's own. */
  home: string;
  modelUrl: string;
  /** Low for error cases: the default is 10 retries, about 3 minutes for a persistent 5xx (protocol §3.6). */
  maxRetries?: number;
  extra?: Record<string, string>;
}

/** A clean environment: nothing of the caller's ANTHROPIC_* or CLAUDE_* variables leaks into a test run. */
export function claudeTestEnv(options: ClaudeEnvOptions): Record<string, string> {
  return {
    PATH: process.env['PATH'] ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: options.home,
    LANG: 'C.UTF-8',
    ANTHROPIC_BASE_URL: options.modelUrl,
    ANTHROPIC_API_KEY: 'sk-dummy',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_MAX_RETRIES: String(options.maxRetries ?? 2),
    ...options.extra,
  };
}

export interface ClaudeExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ClaudeProcess {
  readonly pid: number;
  readonly stdin: Writable;
  readonly stdout: Readable;
  /** Everything the CLI wrote to stderr so far. */
  stderrText(): string;
  /** Writes one NDJSON line to the CLI's stdin. */
  writeLine(value: unknown): void;
  closeStdin(): void;
  readonly exited: Promise<ClaudeExit>;
  kill(signal?: NodeJS.Signals): void;
}

export interface SpawnClaudeOptions {
  argv: readonly string[];
  cwd: string;
  env: Record<string, string>;
}

const running = new Set<ClaudeProcess>();

export function spawnClaude(options: SpawnClaudeOptions): ClaudeProcess {
  const [binary, ...args] = options.argv;
  if (binary === undefined) throw new Error('spawnClaude: empty argv');
  const child = spawn(binary, args, { cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'] });
  if (child.pid === undefined) throw new Error(`spawnClaude: could not start ${binary}`);
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => (stderr += chunk));
  // A CLI that exits while we still write gets EPIPE; the exit itself is what a test asserts on.
  child.stdin.on('error', () => undefined);
  const exited = new Promise<ClaudeExit>((resolve) =>
    child.on('exit', (code, signal) => {
      resolve({ code, signal });
    }),
  );
  const handle: ClaudeProcess = {
    pid: child.pid,
    stdin: child.stdin,
    stdout: child.stdout,
    stderrText: () => stderr,
    writeLine: (value) => child.stdin.write(`${JSON.stringify(value)}\n`),
    closeStdin: () => child.stdin.end(),
    exited,
    kill: (signal = 'SIGKILL') => child.kill(signal),
  };
  running.add(handle);
  void exited.then(() => running.delete(handle));
  return handle;
}

/** For afterEach: kills every CLI this module started that is still running, and waits for each to exit. */
export async function killAllClaudes(): Promise<number> {
  const leftovers = [...running];
  for (const handle of leftovers) handle.kill('SIGKILL');
  await Promise.all(leftovers.map((handle) => handle.exited));
  return leftovers.length;
}
