import { access, readdir, readFile, readlink } from 'node:fs/promises';
import { expect } from 'vitest';
import { waitUntil } from '@catalyst/testkit';
import type { Host, RunHandle, RunOutcome } from '../src/host/host.ts';

/**
 * Helpers shared by the host contract and cleanup suites (host-contract.ts, host-cleanup.ts), for every adapter.
 */

export interface HostProcess {
  pid: number;
  cmdline: string;
  /** Free-form process state for a failure report (e.g. `S ppid=1 pgid=… sid=…`). */
  stat?: string;
}

export interface HostTestContext {
  host: Host;
  /** An empty directory on the host that the host's user can write; removed by `cleanup`. */
  scratchDir: string;
  /**
   * Every process on the host whose command line or environment carries `runTag`: the job and what it started
   * (environment, CATALYST_RUN_TAG) and the wrapper's own shells (their command lines hold the tag). The proof
   * that nothing is left.
   */
  scanProcesses(runTag: string): Promise<HostProcess[]>;
  cleanup(): Promise<void>;
  /** Whether the wrapper's run directory for `runTag` still exists (it must be removed when the run ends). */
  hasRunDir?: (runTag: string) => Promise<boolean>;
  /** What the login shell's rc files print, where they print anything; the suite checks none of it leaks. */
  rcNoise?: readonly string[];
  /**
   * A path the host's user may not create (for a non-root user e.g. `/root/catalyst-denied`; for root locally
   * `/sys/catalyst-denied`, since sysfs refuses new files even to root). Omitted: the case is skipped.
   */
  permissionDeniedPath?: string;
}

export type HostTestSetup = () => Promise<HostTestContext>;

/** Reads both streams of a run in the background, so the run can finish; lets a test wait for stdout text. */
export interface RunWatch {
  stdout(): string;
  stderr(): string;
  /** Resolves once stdout contains `text`; rejects if the run ends first or `timeoutMs` passes. */
  waitForStdout(text: string, timeoutMs?: number): Promise<void>;
  /** Both streams read to their end, then the outcome. */
  finish(): Promise<{ stdout: string; stderr: string; outcome: RunOutcome }>;
}

async function drain(stream: AsyncIterable<Uint8Array>, onText: (text: string) => void): Promise<void> {
  const decoder = new TextDecoder();
  for await (const chunk of stream) onText(decoder.decode(chunk, { stream: true }));
  onText(decoder.decode());
}

export function watchRun(handle: RunHandle): RunWatch {
  let stdout = '';
  let stderr = '';
  const drained = Promise.all([
    drain(handle.stdout, (text) => (stdout += text)),
    drain(handle.stderr, (text) => (stderr += text)),
  ]);
  return {
    stdout: () => stdout,
    stderr: () => stderr,
    async waitForStdout(text, timeoutMs = 15_000) {
      let isOver = false;
      void drained.then(() => (isOver = true));
      await waitUntil(
        () => {
          if (stdout.includes(text)) return true;
          if (isOver)
            throw new Error(`the run ended without printing ${text}; stdout ${stdout}; stderr ${stderr}`);
          return false;
        },
        { timeoutMs, intervalMs: 20, what: `stdout to contain ${text}` },
      );
    },
    async finish() {
      await drained;
      return { stdout, stderr, outcome: await handle.outcome };
    },
  };
}

/** Processes on this machine carrying `runTag` in their command line or their environment. */
export async function scanLocalProcesses(runTag: string): Promise<HostProcess[]> {
  // The job's processes carry the tag; the watchdog gets it as `cr_tag` (run-wrapper.ts), never on a command line.
  const needles = [`CATALYST_RUN_TAG=${runTag}`, `cr_tag=${runTag}`];
  const found: HostProcess[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = (await readFile(`/proc/${entry}/cmdline`, 'utf8')).replaceAll('\0', ' ').trim();
      const environ = cmdline.includes(runTag)
        ? []
        : (await readFile(`/proc/${entry}/environ`, 'utf8')).split('\0');
      if (!cmdline.includes(runTag) && !needles.some((needle) => environ.includes(needle))) continue;
      // state ppid pgid sid, for a report that shows where a leftover hangs.
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8');
      const [state, ppid, pgid, sid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      found.push({
        pid: Number(entry),
        cmdline,
        stat: `${state ?? '?'} ppid=${ppid ?? '?'} pgid=${pgid ?? '?'} sid=${sid ?? '?'}`,
      });
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

/**
 * Processes on this machine that carry a run tag and work in `dir` or beneath it: the runs of one idea (its claude,
 * and what claude's tools started in `project/`), whichever run tag they have. Found by tag and place, never by
 * command line, so a process another test or an earlier killed run left elsewhere is not counted.
 */
export async function scanRunProcessesIn(dir: string): Promise<(HostProcess & { runTag: string })[]> {
  const found: (HostProcess & { runTag: string })[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (!isIn(await readlink(`/proc/${entry}/cwd`), dir)) continue;
      const environ = (await readFile(`/proc/${entry}/environ`, 'utf8')).split('\0');
      const tag = environ.find((variable) => variable.startsWith('CATALYST_RUN_TAG='));
      if (tag === undefined) continue;
      const cmdline = (await readFile(`/proc/${entry}/cmdline`, 'utf8')).replaceAll('\0', ' ').trim();
      found.push({ pid: Number(entry), cmdline, runTag: tag.slice('CATALYST_RUN_TAG='.length) });
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

/** Processes on this machine working in `dir` or beneath it, whatever they carry (`dir` may be deleted by now). */
export async function scanProcessesIn(dir: string): Promise<HostProcess[]> {
  const found: HostProcess[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (!isIn((await readlink(`/proc/${entry}/cwd`)).replace(/ \(deleted\)$/, ''), dir)) continue;
      const cmdline = (await readFile(`/proc/${entry}/cmdline`, 'utf8')).replaceAll('\0', ' ').trim();
      found.push({ pid: Number(entry), cmdline });
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

function isIn(path: string, dir: string): boolean {
  return path === dir || path.startsWith(`${dir}/`);
}

function describeProcess(p: HostProcess): string {
  const cmdline = p.cmdline.length > 100 ? `${p.cmdline.slice(0, 40)} … ${p.cmdline.slice(-60)}` : p.cmdline;
  return `${String(p.pid)} [${p.stat ?? ''}] ${cmdline}`;
}

/** Waits (bounded) until no process carries `runTag`; returns how long that took. */
export async function expectNothingLeft(
  context: Pick<HostTestContext, 'scanProcesses'>,
  runTag: string,
  timeoutMs: number,
): Promise<number> {
  const started = Date.now();
  let last: HostProcess[] = [];
  try {
    await waitUntil(
      async () => {
        last = await context.scanProcesses(runTag);
        return last.length === 0;
      },
      { timeoutMs, intervalMs: 50, what: `no process of run ${runTag}` },
    );
  } catch {
    expect(last.map(describeProcess), 'processes left behind').toEqual([]);
  }
  return Date.now() - started;
}

/** For afterEach: every run a test started must be gone; anything left is killed and fails the test. */
export async function reapRuns(
  context: HostTestContext,
  runTags: string[],
  timeoutMs = 10_000,
): Promise<void> {
  const tags = runTags.splice(0);
  const leftovers = await Promise.all(
    tags.map(async (tag) => {
      try {
        await waitUntil(async () => (await context.scanProcesses(tag)).length === 0, { timeoutMs });
        return [];
      } catch {
        const left = await context.scanProcesses(tag);
        await context.host.killRun(tag);
        return left;
      }
    }),
  );
  expect(leftovers.flat().map(describeProcess), 'a run outlived its test').toEqual([]);
  const { hasRunDir } = context;
  if (hasRunDir === undefined) return;
  // The watchdog may remove the directory a moment after the last process is gone (ssh-field-notes.md §3c).
  const dirsLeft = async () => (await Promise.all(tags.map(hasRunDir))).filter(Boolean).length;
  await waitUntil(async () => (await dirsLeft()) === 0, {
    timeoutMs: 2000,
    what: 'run directories to be removed',
  });
}

/** The local wrapper's run directory (vm/lib/run-dir.sh, cr_make_run: the first root, under $TMPDIR). */
export async function hasLocalRunDir(runTag: string): Promise<boolean> {
  const root = `${process.env['TMPDIR'] ?? '/tmp'}/catalyst-runs-${String(process.getuid?.() ?? 0)}`;
  return access(`${root}/${runTag}`).then(
    () => true,
    () => false,
  );
}

/**
 * The session's supervisor S and its forks (its timer): the processes whose environment holds `cr_tag=<id>`
 * (vm-job-shell.ts), and the session dir S was given. The tests run as root on the machine of every adapter.
 */
export async function supervisorOf(sessionId: string): Promise<{ pids: number[]; dir: string | undefined }> {
  const pids: number[] = [];
  let dir: string | undefined;
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const environ = await readFile(`/proc/${entry}/environ`, 'utf8').then(
      (text) => text.split('\0'),
      (): string[] => [],
    );
    if (!environ.includes(`cr_tag=${sessionId}`)) continue;
    pids.push(Number(entry));
    dir ??= environ.find((item) => item.startsWith('cr_run='))?.slice('cr_run='.length);
  }
  return { pids, dir };
}

/** Resolves with the promise's value, or fails the test when it takes longer than `ms`. */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new Error(`${what} took longer than ${ms} ms`));
    }, ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
