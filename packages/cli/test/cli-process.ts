import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { dirname } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';

/** The real bin, run as a person runs it: the file itself (its shebang finds node), in a process of its own. */
export const CLI_BIN = fileURLToPath(new URL('../bin/catalyst.mjs', import.meta.url));

export interface CliExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliProcess {
  readonly child: ChildProcessByStdio<Writable | null, Readable, Readable>;
  readonly exited: Promise<CliExit>;
  /** Resolves once the process has printed `text` on stdout or stderr; rejects if it exits first. */
  printed(text: string, stream?: 'stdout' | 'stderr'): Promise<void>;
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
  const child =
    options.atTerminal === true
      ? spawn('/usr/bin/script', ['-qefc', [bin, ...args].map(shellQuote).join(' '), '/dev/null'], {
          cwd: options.cwd,
          env,
          stdio: ['pipe', 'pipe', 'pipe'],
        })
      : spawn(bin, args, { cwd: options.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const output = { stdout: '', stderr: '' };
  const watchers = new Set<() => void>();
  for (const stream of ['stdout', 'stderr'] as const) {
    child[stream].setEncoding('utf8');
    child[stream].on('data', (chunk: string) => {
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
    printed: (text, stream) => awaitOutput({ output, watchers, exited }, text, stream),
    type: (line) => {
      if (child.stdin === null) throw new Error('type() needs atTerminal');
      child.stdin.write(`${line}\n`);
    },
  };
  running.add(cli);
  void exited.then(() => running.delete(cli));
  return cli;
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
  text: string,
  stream: 'stdout' | 'stderr' | undefined,
): Promise<void> {
  const { output, watchers, exited } = process;
  return new Promise<void>((resolve, reject) => {
    const check = (): void => {
      const seen = stream === undefined ? output.stdout + output.stderr : output[stream];
      if (!seen.includes(text)) return;
      watchers.delete(check);
      resolve();
    };
    watchers.add(check);
    check();
    void exited.then((exit) => {
      reject(new Error(`the CLI exited before printing ${JSON.stringify(text)}: ${JSON.stringify(exit)}`));
    });
  });
}

export function runCli(args: string[], options: CliOptions = {}): Promise<CliExit> {
  return startCli(args, options).exited;
}

/** For afterEach: a CLI a failed test left running is killed, and reported. */
export async function killLeftovers(): Promise<number> {
  const left = [...running];
  for (const cli of left) cli.child.kill('SIGKILL');
  await Promise.all(left.map((cli) => cli.exited));
  return left.length;
}
