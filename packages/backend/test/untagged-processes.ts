import { readdir, readFile } from 'node:fs/promises';
import { expect } from 'vitest';
import { waitUntil } from '@catalyst/testkit';
import type { HostProcess } from './host-test-kit.ts';

/**
 * Processes that dropped their run tag (`env -i`, issue 39), which the scans by tag cannot see: found by their
 * command line instead. Every adapter under test runs its processes on this machine (locally, or as a user of the
 * testkit's sshd on loopback), so /proc here sees them all.
 */

/** Processes on this machine whose command line contains `text`. */
export async function scanByCommand(text: string): Promise<HostProcess[]> {
  const found: HostProcess[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').then(
      (raw) => raw.replaceAll('\0', ' ').trim(),
      () => '',
    );
    if (cmdline.includes(text)) found.push({ pid: Number(entry), cmdline });
  }
  return found;
}

/** Waits until a process with `text` in its command line runs. */
export async function awaitCommand(text: string): Promise<void> {
  await waitUntil(async () => (await scanByCommand(text)).length > 0, {
    timeoutMs: 10_000,
    what: `a process running ${text}`,
  });
}

/** Waits (bounded) until no process has `text` in its command line; returns how long that took. */
export async function expectNoCommandLeft(text: string, timeoutMs: number): Promise<number> {
  const started = Date.now();
  let last: HostProcess[] = [];
  try {
    await waitUntil(
      async () => {
        last = await scanByCommand(text);
        return last.length === 0;
      },
      { timeoutMs, intervalMs: 50, what: `no process running ${text}` },
    );
  } catch {
    expect(
      last.map((p) => `${String(p.pid)} ${p.cmdline}`),
      'untagged processes left behind',
    ).toEqual([]);
  }
  return Date.now() - started;
}

/** For afterEach: SIGKILLs whatever a failed test left running `text` (the tests run as root). */
export async function killCommands(texts: string[]): Promise<void> {
  for (const text of texts.splice(0)) {
    for (const p of await scanByCommand(text)) {
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        // Gone meanwhile.
      }
    }
  }
}
