import { readdir, readFile } from 'node:fs/promises';

/** Processes on this machine whose command line contains `needle`: the proof that a test left nothing behind. */
export async function findProcesses(needle: string): Promise<{ pid: number; cmdline: string }[]> {
  const found: { pid: number; cmdline: string }[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let cmdline: string;
    try {
      cmdline = (await readFile(`/proc/${entry}/cmdline`, 'utf8')).replaceAll('\0', ' ').trim();
    } catch {
      continue; // the process ended while we looked
    }
    if (cmdline.includes(needle)) found.push({ pid: Number(entry), cmdline });
  }
  return found;
}

/** The command line of `pid` (arguments joined by spaces), undefined once the process is gone. */
export async function readCmdline(pid: number): Promise<string | undefined> {
  try {
    return (await readFile(`/proc/${String(pid)}/cmdline`, 'utf8')).replaceAll('\0', ' ').trim();
  } catch {
    return undefined;
  }
}
