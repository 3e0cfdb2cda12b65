/**
 * The bench's side of the backend child (backend.ts): starts it, waits for its ready line, samples
 * its RSS from /proc, keeps what it logged at warn or above, and stops it (stdin closed, then SIGKILL if it has
 * not exited in time).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { z } from 'zod';

const ENTRY = fileURLToPath(new URL('./backend.ts', import.meta.url));
const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const READY_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 20_000;
const SAMPLE_EVERY_MS = 50;
/** pino's level numbers: 40 is warn. */
const WARN_LEVEL = 40;

const ReadyLineSchema = z.object({ ready: z.object({ url: z.string() }) });
const MemoryLineSchema = z.object({
  memory: z.object({ rss: z.number(), heapTotal: z.number(), heapUsed: z.number(), external: z.number() }),
});
const LogLineSchema = z.looseObject({ level: z.number(), msg: z.string().optional() });
export type MemoryUsage = z.infer<typeof MemoryLineSchema>['memory'];

export interface RssReading {
  /** VmRSS and VmHWM (the kernel's own peak) in bytes. */
  readonly rss: number;
  readonly hwm: number;
}

export interface BackendProcess {
  readonly pid: number;
  readonly url: string;
  /** The highest VmRSS sampled since the last call, in bytes; every SAMPLE_EVERY_MS. */
  takeSampledPeak(): number;
  readRss(): Promise<RssReading>;
  /** User plus system CPU time the backend has used, all threads, in seconds. */
  readCpuSeconds(): Promise<number>;
  /** process.memoryUsage() inside the backend, after a full GC. */
  memoryUsage(): Promise<MemoryUsage>;
  /** Lines it logged at warn or above, and anything on its stderr. */
  problems(): readonly string[];
  stop(): Promise<void>;
}

export async function startBackendProcess(env: Record<string, string>): Promise<BackendProcess> {
  const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', ENTRY], {
    cwd: REPO_ROOT,
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: process.env['HOME'] ?? '/root', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error('could not start the backend child');
  const exited = once(child, 'exit');
  const lines = watchLines(child);
  const sampler = startSampler(pid);
  const stop = () => stopChild(child, exited, sampler.stop);
  try {
    const url = await lines.ready;
    return { pid, url, ...sampler.api, memoryUsage: lines.memoryUsage, problems: lines.problems, stop };
  } catch (error) {
    await stop();
    throw new Error(`the backend did not start: ${String(error)}\n${lines.problems().join('\n')}`, {
      cause: error,
    });
  }
}

function watchLines(child: ChildProcessWithoutNullStreams) {
  const problems: string[] = [];
  const memoryWaiters: { resolve: (usage: MemoryUsage) => void; reject: (error: Error) => void }[] = [];
  const ready = watchReady(child);
  createInterface({ input: child.stdout }).on('line', (line) => {
    const value = parseJson(line);
    const readyLine = ReadyLineSchema.safeParse(value);
    const memoryLine = MemoryLineSchema.safeParse(value);
    const logLine = LogLineSchema.safeParse(value);
    if (readyLine.success) ready.markReady(readyLine.data.ready.url);
    else if (memoryLine.success) memoryWaiters.shift()?.resolve(memoryLine.data.memory);
    else if (!logLine.success || logLine.data.level >= WARN_LEVEL) problems.push(`backend: ${line}`);
  });
  createInterface({ input: child.stderr }).on('line', (line) => problems.push(`backend stderr: ${line}`));
  child.once('exit', () => {
    for (const waiter of memoryWaiters.splice(0)) waiter.reject(new Error('the backend has exited'));
  });
  const memoryUsage = () =>
    new Promise<MemoryUsage>((resolve, reject) => {
      memoryWaiters.push({ resolve, reject });
      child.stdin.write('memory\n');
    });
  return { ready: ready.url, memoryUsage, problems: (): readonly string[] => problems };
}

/** The ready line's URL; fails when the child exits first or is silent for READY_TIMEOUT_MS. */
function watchReady(child: ChildProcessWithoutNullStreams) {
  let markReady: (url: string) => void = () => undefined;
  const url = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`no ready line within ${READY_TIMEOUT_MS} ms`));
    }, READY_TIMEOUT_MS);
    markReady = (found) => {
      clearTimeout(timer);
      resolve(found);
    };
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`it exited (code ${String(code)}, signal ${String(signal)})`));
    });
  });
  return {
    url,
    markReady: (found: string) => {
      markReady(found);
    },
  };
}

function parseJson(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

function startSampler(pid: number) {
  let peak = 0;
  let isSampling = false;
  const timer = setInterval(() => {
    // A sample that takes longer than the interval is not stacked on by the next one.
    if (isSampling) return;
    isSampling = true;
    readRss(pid)
      .then((reading) => (peak = Math.max(peak, reading.rss)))
      .catch(() => undefined) // the child has exited; stop() ends the sampling
      .finally(() => (isSampling = false));
  }, SAMPLE_EVERY_MS);
  return {
    stop: () => {
      clearInterval(timer);
    },
    api: {
      takeSampledPeak: () => {
        const taken = peak;
        peak = 0;
        return taken;
      },
      readRss: () => readRss(pid),
      readCpuSeconds: () => readCpuSeconds(pid),
    },
  };
}

async function readRss(pid: number): Promise<RssReading> {
  const status = await readFile(`/proc/${String(pid)}/status`, 'utf8');
  const kib = (field: string): number => {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status);
    if (match?.[1] === undefined) throw new Error(`no ${field} in /proc/${String(pid)}/status`);
    return Number(match[1]) * 1024;
  };
  return { rss: kib('VmRSS'), hwm: kib('VmHWM') };
}

/** USER_HZ, the unit of /proc/PID/stat's times, is 100 on every Linux ABI node runs on. */
const CLOCK_TICKS_PER_SECOND = 100;

async function readCpuSeconds(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${String(pid)}/stat`, 'utf8');
  // After `comm)`: state is field 3, utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  if (!Number.isFinite(ticks)) throw new Error(`unexpected /proc/${String(pid)}/stat: ${stat}`);
  return ticks / CLOCK_TICKS_PER_SECOND;
}

async function stopChild(
  child: ChildProcessWithoutNullStreams,
  exited: Promise<unknown>,
  stopSampling: () => void,
): Promise<void> {
  stopSampling();
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.stdin.end();
  // Cleared only once the child has exited, never earlier.
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}
