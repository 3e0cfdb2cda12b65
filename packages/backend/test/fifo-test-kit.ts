import { execFileSync } from 'node:child_process';
import { constants } from 'node:fs';
import { open, readdir, readFile } from 'node:fs/promises';

/**
 * FIFOs for the tests of issue 25 (findings 2, 10, 11): one Bash step of a build can make one, and a reader that
 * opens it waits in open() until a writer comes. The "VM" is this machine, so a test sees the VM's processes.
 */

/** A FIFO made as a build would; the tests run as root, and mkfifo's 0644 lets the VM's user open it. */
export function makeFifo(path: string): void {
  execFileSync('mkfifo', [path]);
}

/**
 * Opens the FIFO read-write without blocking and closes it: a reader stuck in open() goes on (and reads EOF), so
 * nothing is left waiting on it, whatever the code under test did.
 */
export async function releaseFifo(path: string): Promise<void> {
  const handle = await open(path, constants.O_RDWR | constants.O_NONBLOCK).catch(() => undefined);
  await handle?.close();
}

/** The pids of `uid`'s processes waiting in a FIFO's open() for a writer (the kernel's wait_for_partner). */
export async function fifoOpenWaiters(uid: number): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const [status, wchan] = await Promise.all([
        readFile(`/proc/${entry}/status`, 'utf8'),
        readFile(`/proc/${entry}/wchan`, 'utf8'),
      ]);
      // The real uid from status: sshd's processes are not dumpable, so their /proc entry belongs to root.
      const realUid = Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]);
      if (realUid === uid && wchan === 'wait_for_partner') pids.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}
