import { readdir, readFile } from 'node:fs/promises';

interface ProcessStat {
  state: string;
  ppid: number;
}

/** Parses /proc/PID/stat, undefined once gone. comm may hold spaces and `)`, so split after the last `)`. */
async function readStat(pid: number): Promise<ProcessStat | undefined> {
  let text: string;
  try {
    text = await readFile(`/proc/${String(pid)}/stat`, 'utf8');
  } catch {
    return undefined; // the process ended while we looked
  }
  const [state, ppid] = text.slice(text.lastIndexOf(')') + 2).split(' ');
  if (state === undefined || ppid === undefined)
    throw new Error(`unexpected /proc/${String(pid)}/stat: ${text}`);
  return { state, ppid: Number(ppid) };
}

/** Every process below `pid`, found by parent links; one that was reparented already is out of reach. */
export async function findDescendants(pid: number): Promise<number[]> {
  const children = new Map<number, number[]>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readStat(Number(entry));
    if (stat === undefined) continue;
    children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), Number(entry)]);
  }
  const found: number[] = [];
  const queue = [...(children.get(pid) ?? [])];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    found.push(next);
    queue.push(...(children.get(next) ?? []));
  }
  return found;
}

/** Gone or a zombie: this machine's PID 1 reaps orphans lazily, so a killed orphan lingers as `Z` a while. */
export async function isProcessGone(pid: number): Promise<boolean> {
  const stat = await readStat(pid);
  return stat === undefined || stat.state === 'Z';
}

/** Sends a signal to a process that may have ended already. */
export function signalIfAlive(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch (error) {
    if (!(error instanceof Error && 'code' in error && error.code === 'ESRCH')) throw error;
  }
}
