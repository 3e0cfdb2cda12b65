import { spawn } from 'node:child_process';

/** A short helper command on this machine (preflight probes, the kill script), never a run: runs use the wrapper. */

export interface LocalCommandResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  isTimedOut: boolean;
}

export interface LocalCommandOptions {
  timeoutMs: number;
  env?: NodeJS.ProcessEnv;
  /** Written to stdin, which is then closed; without it stdin is at its end at once. */
  input?: string;
}

const OUTPUT_LIMIT_CHARS = 64 * 1024;

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // The group is gone already.
  }
}

/**
 * Runs `file args` with `options.input` as its stdin, in its own process group so a timeout can end everything it started (a login
 * shell may start helpers). Rejects only when the file cannot be spawned.
 */
export function runLocalCommand(
  file: string,
  args: readonly string[],
  options: LocalCommandOptions,
): Promise<LocalCommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: options.env ?? process.env,
      cwd: '/',
    });
    // A command that exits without reading its input must not turn into an EPIPE crash.
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input);
    let stdout = '';
    let stderr = '';
    let isTimedOut = false;
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      stdout = (stdout + text).slice(0, OUTPUT_LIMIT_CHARS);
    });
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr = (stderr + text).slice(-OUTPUT_LIMIT_CHARS);
    });
    const timer = setTimeout(() => {
      isTimedOut = true;
      if (child.pid !== undefined) killGroup(child.pid);
    }, options.timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, isTimedOut });
    });
  });
}
