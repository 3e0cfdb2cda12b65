import { spawn, type ChildProcess } from 'node:child_process';
import { findDescendants, isProcessGone, signalIfAlive } from './process-tree.ts';
import { waitUntil } from './wait-until.ts';

export interface SshdExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** One `sshd -D -e` child and its log, which it writes to stderr line by line. */
export interface SshdProcess {
  readonly pid: number;
  readonly logText: () => string;
  /** The first log line, past or future, that contains `pattern` (a string) or matches it (a RegExp). */
  readonly waitForLog: (pattern: string | RegExp, timeoutMs?: number) => Promise<string>;
  readonly exited: Promise<SshdExit>;
  /** Resolves once stderr has ended, so the log is complete; session children hold it open too. */
  readonly logClosed: Promise<void>;
  /** SIGKILLs the sessions below sshd, then SIGTERMs sshd (SIGKILL after 3 s); resolves on its exit. */
  terminate(): Promise<SshdExit>;
}

const KILL_AFTER_MS = 3_000;

export function spawnSshd(configPath: string): SshdProcess {
  // -D: stay in the foreground as our child; -e: log to stderr. sshd's re-exec requires the absolute path
  // (field notes §0). An empty environment: nothing of the test runner's leaks into sshd or its sessions.
  const child = spawn('/usr/sbin/sshd', ['-D', '-e', '-f', configPath], {
    env: {},
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  if (child.pid === undefined) throw new Error('could not start /usr/sbin/sshd');
  const pid = child.pid;
  const log = createLineLog();
  child.on('error', (error) => {
    log.finish(`sshd failed: ${error.message}`);
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    log.append(chunk);
  });
  const logClosed = new Promise<void>((resolve) => child.stderr.on('close', resolve));
  const exited = new Promise<SshdExit>((resolve) => {
    child.on('exit', (code, signal) => {
      log.finish(`sshd exited (code ${String(code)}, signal ${String(signal)})`);
      resolve({ code, signal });
    });
  });
  const terminate = () => terminateSshd(child, exited);
  return { pid, logText: log.text, waitForLog: log.waitFor, exited, logClosed, terminate };
}

async function terminateSshd(child: ChildProcess, exited: Promise<SshdExit>): Promise<SshdExit> {
  // Node sets these once it has seen the exit; `child.killed` says only that a signal was sent.
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return exited;
  let sessionError: Error | undefined;
  try {
    await killSessions(child.pid);
  } catch (error) {
    // sshd itself must still go; the error follows once it has.
    sessionError = error instanceof Error ? error : new Error(String(error));
  }
  child.kill('SIGTERM');
  // Cleared only once sshd has exited, never earlier.
  const timer = setTimeout(() => child.kill('SIGKILL'), KILL_AFTER_MS);
  const exit = await exited;
  clearTimeout(timer);
  if (sessionError !== undefined) throw sessionError;
  return exit;
}

/**
 * A SIGTERMed sshd leaves its sessions and their commands running (field notes §2), so those are killed
 * first, while their parent links still lead here. No event announces the death of a non-child, hence the poll.
 */
async function killSessions(pid: number): Promise<void> {
  const sessions = await findDescendants(pid);
  for (const session of sessions) signalIfAlive(session, 'SIGKILL');
  await waitUntil(async () => (await Promise.all(sessions.map(isProcessGone))).every(Boolean), {
    timeoutMs: KILL_AFTER_MS,
    what: `sshd ${String(pid)}'s session processes ${sessions.join(', ')} to end`,
  });
}

interface LineLog {
  append: (chunk: string) => void;
  /** No more lines will come: pending and future waits fail with `reason`. */
  finish: (reason: string) => void;
  text: () => string;
  waitFor: (pattern: string | RegExp, timeoutMs?: number) => Promise<string>;
}

interface LineWaiter {
  matches(line: string): boolean;
  resolve(line: string): void;
  reject(error: Error): void;
}

function createLineLog(): LineLog {
  const lines: string[] = [];
  let partial = '';
  let endReason: string | undefined;
  const waiters = new Set<LineWaiter>();
  const append = (chunk: string) => {
    const pieces = (partial + chunk).split('\n');
    partial = pieces.pop() ?? '';
    for (const line of pieces) {
      lines.push(line);
      for (const waiter of waiters) if (waiter.matches(line)) waiter.resolve(line);
    }
  };
  const finish = (reason: string) => {
    endReason = reason;
    for (const waiter of waiters) waiter.reject(new Error(`${reason} before logging the expected line`));
  };
  const text = () => [...lines, partial].join('\n');
  const waitFor = (pattern: string | RegExp, timeoutMs = 10_000) =>
    awaitLine({ lines, waiters, endReason, matches: lineMatcher(pattern), timeoutMs });
  return { append, finish, text, waitFor };
}

function lineMatcher(pattern: string | RegExp): (line: string) => boolean {
  return typeof pattern === 'string' ? (line) => line.includes(pattern) : (line) => pattern.test(line);
}

interface AwaitLineOptions {
  lines: readonly string[];
  waiters: Set<LineWaiter>;
  endReason: string | undefined;
  matches: (line: string) => boolean;
  timeoutMs: number;
}

function awaitLine(options: AwaitLineOptions): Promise<string> {
  const { lines, waiters, matches } = options;
  const seen = lines.find(matches);
  if (seen !== undefined) return Promise.resolve(seen);
  if (options.endReason !== undefined) {
    return Promise.reject(new Error(`${options.endReason} without the expected line`));
  }
  return new Promise<string>((resolve, reject) => {
    const settle = () => {
      clearTimeout(timer);
      waiters.delete(waiter);
    };
    const waiter: LineWaiter = {
      matches,
      resolve: (line) => {
        settle();
        resolve(line);
      },
      reject: (error) => {
        settle();
        reject(error);
      },
    };
    const timer = setTimeout(() => {
      waiter.reject(new Error(`no matching sshd log line within ${String(options.timeoutMs)} ms`));
    }, options.timeoutMs);
    waiters.add(waiter);
  });
}
