/**
 * What a phase of the relay bench cost, beside its own figures: wall time, how busy the whole machine was (other
 * work on it shows here), CPU time of the backend and of the bench process (the WebSocket clients and the raw-exec
 * reader), the backend's sampled peak RSS and its heap after a full GC, and what sshd logged (LogLevel VERBOSE):
 * new connections, exec sessions (runs, kill scripts) and SFTP sessions (the ideas' files and event histories).
 */
import { readFile } from 'node:fs/promises';
import type { SshdHandle } from '../../packages/testkit/src/sshd.ts';
import type { BackendProcess } from './backend-process.ts';

const MB = 1e6;
const SSHD_COUNTS = {
  connections: /Accepted publickey for /,
  execSessions: /Starting session: command /,
  sftpSessions: /Starting session: subsystem 'sftp'/,
};

type SshdCounts = Record<keyof typeof SSHD_COUNTS, number>;

function countSshdLog(text: string): SshdCounts {
  const lines = text.split('\n');
  const count = (pattern: RegExp) => lines.filter((line) => pattern.test(line)).length;
  return {
    connections: count(SSHD_COUNTS.connections),
    execSessions: count(SSHD_COUNTS.execSessions),
    sftpSessions: count(SSHD_COUNTS.sftpSessions),
  };
}

export interface PhaseProbes {
  readonly backend: BackendProcess;
  readonly sshd: SshdHandle;
  readonly say: (line: string) => void;
}

interface Snapshot {
  readonly wall: number;
  readonly backendCpuS: number;
  readonly benchCpu: NodeJS.CpuUsage;
  readonly machine: MachineCpu;
  readonly sshd: SshdCounts;
}

interface MachineCpu {
  readonly busy: number;
  readonly total: number;
}

/** Busy and total jiffies of all CPUs since boot, from the first line of /proc/stat. */
async function readMachineCpu(): Promise<MachineCpu> {
  const first = (await readFile('/proc/stat', 'utf8')).split('\n', 1)[0] ?? '';
  // cpu user nice system idle iowait irq softirq steal …: idle and iowait are the idle ones.
  const values = first.trim().split(/\s+/).slice(1).map(Number);
  const total = values.slice(0, 8).reduce((sum, value) => sum + value, 0);
  const idle = (values[3] ?? 0) + (values[4] ?? 0);
  return { busy: total - idle, total };
}

function busyShare(before: MachineCpu, after: MachineCpu): number {
  return (after.busy - before.busy) / Math.max(1, after.total - before.total);
}

/** How busy the machine is without this bench: other work on a 2-core machine is what makes p99 noisy. */
export async function measureBackgroundBusy(ms: number): Promise<number> {
  const before = await readMachineCpu();
  await new Promise((resolve) => setTimeout(resolve, ms));
  return busyShare(before, await readMachineCpu());
}

async function takeSnapshot(probes: PhaseProbes): Promise<Snapshot> {
  return {
    wall: performance.now(),
    backendCpuS: await probes.backend.readCpuSeconds(),
    benchCpu: process.cpuUsage(),
    machine: await readMachineCpu(),
    sshd: countSshdLog(probes.sshd.logText()),
  };
}

/** Runs the phase, then says what it cost; the backend's sampled RSS peak starts afresh with each phase. */
export async function withCosts<T>(name: string, probes: PhaseProbes, run: () => Promise<T>): Promise<T> {
  probes.backend.takeSampledPeak();
  const before = await takeSnapshot(probes);
  const result = await run();
  const after = await takeSnapshot(probes);
  const peakMb = probes.backend.takeSampledPeak() / MB;
  const heap = await probes.backend.memoryUsage();
  const wallS = (after.wall - before.wall) / 1000;
  const backendCpuS = after.backendCpuS - before.backendCpuS;
  const bench = process.cpuUsage(before.benchCpu);
  const sshd = (key: keyof SshdCounts) => after.sshd[key] - before.sshd[key];
  probes.say(
    `${name} cost: ${wallS.toFixed(1)} s wall, the machine ${percent(busyShare(before.machine, after.machine))} ` +
      `busy; CPU: backend ${backendCpuS.toFixed(1)} s (${percent(backendCpuS / wallS)} of a core), bench process ` +
      `${((bench.user + bench.system) / 1e6).toFixed(1)} s; backend RSS sampled peak ${peakMb.toFixed(1)} MB, ` +
      `heap after GC ${(heap.heapUsed / MB).toFixed(1)} MB; sshd: ${sshd('connections')} connections, ` +
      `${sshd('execSessions')} exec sessions, ${sshd('sftpSessions')} SFTP sessions`,
  );
  return result;
}

export function percent(share: number): string {
  return `${(100 * share).toFixed(0)}%`;
}
