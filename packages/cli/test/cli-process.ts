import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Readable, type Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';

/** The real bin, run as a person runs it: the file itself (its shebang finds node), in a process of its own. */
export const CLI_BIN = fileURLToPath(new URL('../bin/catalyst.mjs', import.meta.url));

export interface CliExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliProcess {
  readonly child: ChildProcess;
  readonly exited: Promise<CliExit>;
  /** Resolves once the process has printed `text` on stdout or stderr; rejects if it exits first. */
  printed(text: string, stream?: 'stdout' | 'stderr'): Promise<void>;
  /** Resolves with the first match of `pattern` on that stream, once there is one; rejects if it exits first. */
  printedMatch(pattern: RegExp, stream: 'stdout' | 'stderr'): Promise<RegExpMatchArray>;
  /** Types a line at the terminal (`atTerminal` only). */
  type(line: string): void;
}

export interface CliOptions {
  /** Another executable than the bin (a symlink to it). */
  bin?: string;
  cwd?: string;
  env?: Record<string, string>;
  /**
   * Run it at a terminal, as a person does: in a pseudo-terminal of util-linux `script`, whose stdin (a pipe here)
   * is what is typed (`type`) and whose stdout is the terminal's, stdout and stderr together, lines ending CRLF.
   */
  atTerminal?: boolean;
  /** At a terminal, the CLI's stderr apart from it (on a pipe `script` passes down as fd 3), as `stderr`. */
  hasStderrApart?: boolean;
  /** Not at a terminal: stdin is this file (`catalyst … < file`). */
  stdinFile?: string;
}

const running = new Set<CliProcess>();

/**
 * Starts the CLI with a clean environment: no CATALYST_* of the machine running the tests, no colour, and the
 * node that runs the tests first on PATH. stdin is not a terminal, as in a script.
 */
export function startCli(args: string[], options: CliOptions = {}): CliProcess {
  const env: Record<string, string> = {
    PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
    HOME: process.env.HOME ?? '/nonexistent',
    NO_COLOR: '1',
    ...options.env,
  };
  const bin = options.bin ?? CLI_BIN;
  const child = spawnCli(bin, args, { ...options, env });
  const output = { stdout: '', stderr: '' };
  const watchers = new Set<() => void>();
  const streams = {
    stdout: pipeOf(child.stdout),
    stderr: pipeOf(options.hasStderrApart === true ? child.stdio[3] : child.stderr),
  };
  for (const stream of ['stdout', 'stderr'] as const) {
    streams[stream].setEncoding('utf8');
    streams[stream].on('data', (chunk: string) => {
      output[stream] += chunk;
      for (const watcher of watchers) watcher();
    });
  }
  const exited = new Promise<CliExit>((resolve) => {
    child.once('close', (code, signal) => {
      resolve({ code, signal, ...output });
    });
  });
  const cli: CliProcess = {
    child,
    exited,
    printed: async (text, stream) => {
      await awaitOutput({ output, watchers, exited }, text, stream);
    },
    printedMatch: (pattern, stream) => awaitOutput({ output, watchers, exited }, pattern, stream),
    type: (line) => {
      if (child.stdin === null) throw new Error('type() needs atTerminal');
      child.stdin.write(`${line}\n`);
    },
  };
  running.add(cli);
  void exited.then(() => running.delete(cli));
  return cli;
}

function spawnCli(
  bin: string,
  args: string[],
  options: CliOptions & { env: Record<string, string> },
): ChildProcess {
  const { cwd, env } = options;
  if (options.atTerminal !== true) {
    const stdin = options.stdinFile === undefined ? 'ignore' : openSync(options.stdinFile, 'r');
    const child = spawn(bin, args, { cwd, env, stdio: [stdin, 'pipe', 'pipe'] });
    if (typeof stdin === 'number') closeSync(stdin);
    return child;
  }
  const command = [bin, ...args].map(shellQuote).join(' ');
  const isApart = options.hasStderrApart === true;
  return spawn('/usr/bin/script', ['-qefc', isApart ? `${command} 2>&3` : command, '/dev/null'], {
    cwd,
    env,
    stdio: isApart ? ['pipe', 'pipe', 'pipe', 'pipe'] : ['pipe', 'pipe', 'pipe'],
  });
}

function pipeOf(stream: Readable | Writable | null | undefined): Readable {
  if (!(stream instanceof Readable)) throw new Error('the CLI’s output is not a pipe');
  return stream;
}

function shellQuote(arg: string): string {
  return `'${arg.replaceAll("'", "'\\''")}'`;
}

/** Resolves once `text` is in the output so far or later; rejects when the process exits without it. */
function awaitOutput(
  process: {
    output: { stdout: string; stderr: string };
    watchers: Set<() => void>;
    exited: Promise<CliExit>;
  },
  text: string | RegExp,
  stream: 'stdout' | 'stderr' | undefined,
): Promise<RegExpMatchArray> {
  const { output, watchers, exited } = process;
  const pattern = typeof text === 'string' ? new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) : text;
  return new Promise<RegExpMatchArray>((resolve, reject) => {
    const check = (): void => {
      const seen = stream === undefined ? output.stdout + output.stderr : output[stream];
      const match = pattern.exec(seen);
      if (match === null) return;
      watchers.delete(check);
      resolve(match);
    };
    watchers.add(check);
    check();
    void exited.then((exit) => {
      reject(new Error(`the CLI exited before printing ${String(text)}: ${JSON.stringify(exit)}`));
    });
  });
}

export function runCli(args: string[], options: CliOptions = {}): Promise<CliExit> {
  return startCli(args, options).exited;
}

/** After each test of the file: it left no command running (one a failed test left is killed, and reported). */
export function expectNoCliLeftAfterEach(): void {
  afterEach(async () => {
    expect(await killLeftovers(), 'the test left a catalyst process running').toBe(0);
  });
}

/** A test file's own files for the command: a private directory, and in it a token file as a person keeps one. */
export interface CliFiles {
  readonly dir: string;
  /** `--token-file`'s argument: `token()`'s value and a newline, mode 0600. */
  readonly tokenFile: string;
}

/**
 * What every `catalyst` command test file sets up: its files (made before its tests, removed after them; read
 * them in a test or a later hook) and the check that each test left no command running.
 */
export function useCliFiles(prefix: string, token: () => string): CliFiles {
  let files: CliFiles | undefined;
  beforeAll(async () => {
    const dir = await mkdtemp(join(tmpdir(), `${prefix}-`));
    const tokenFile = join(dir, 'token');
    await writeFile(tokenFile, `${token()}\n`, { mode: 0o600 });
    files = { dir, tokenFile };
  });
  expectNoCliLeftAfterEach();
  afterAll(async () => {
    if (files !== undefined) await rm(files.dir, { recursive: true, force: true });
  });
  const made = (): CliFiles => {
    if (files === undefined) throw new Error('the command test files are made before the file`s tests');
    return files;
  };
  return {
    get dir() {
      return made().dir;
    },
    get tokenFile() {
      return made().tokenFile;
    },
  };
}

/** For afterEach: a CLI a failed test left running is killed, and reported. */
export async function killLeftovers(): Promise<number> {
  const left = [...running];
  for (const cli of left) cli.child.kill('SIGKILL');
  await Promise.all(left.map((cli) => cli.exited));
  return left.length;
}
