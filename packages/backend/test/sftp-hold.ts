import { constants } from 'node:fs';
import { open, readdir, readFile, type FileHandle } from 'node:fs/promises';
import { signalIfAlive, waitUntil } from '@catalyst/testkit';

/**
 * A VM whose file service is stuck, made on purpose: every SFTP server of a user (the test sshd's `internal-sftp`,
 * a child of the user's session process that reads its requests from a pipe) is stopped, and the test reads what
 * arrives in those pipes itself. A request read here is never answered, so a file call that sent one is stuck for
 * as long as the test likes, and the test knows the moment it was sent: no race with the code under test.
 */
export interface SftpHold {
  /** Resolves once a request has arrived since the hold began (or since the last call). */
  waitForRequest(timeoutMs: number): Promise<void>;
  /** Ends the held SFTP servers; their connections' clients see the channel close. */
  release(): Promise<void>;
}

export async function holdSftpServers(uid: number): Promise<SftpHold> {
  const pids = await sftpServers(uid);
  if (pids.length === 0) throw new Error(`no SFTP server of uid ${String(uid)} is running`);
  for (const pid of pids) process.kill(pid, 'SIGSTOP');
  const pipes: FileHandle[] = [];
  for (const pid of pids) {
    // The read end of the server's stdin, opened anew through /proc: a second reader of the same pipe.
    pipes.push(await open(`/proc/${String(pid)}/fd/0`, constants.O_RDONLY | constants.O_NONBLOCK));
  }
  const buffer = Buffer.alloc(64 * 1024);
  /** Bytes read from all the pipes; 0 when they are empty. */
  const drain = async (): Promise<number> => {
    let total = 0;
    for (const pipe of pipes) {
      for (;;) {
        const read = await pipe.read(buffer, 0, buffer.length, null).catch((error: unknown) => {
          if (error instanceof Error && 'code' in error && error.code === 'EAGAIN') return { bytesRead: 0 };
          throw error;
        });
        if (read.bytesRead === 0) break;
        total += read.bytesRead;
      }
    }
    return total;
  };
  // Anything sent before the hold is not the request a test waits for.
  await drain();
  return {
    async waitForRequest(timeoutMs) {
      await waitUntil(async () => (await drain()) > 0, {
        timeoutMs,
        intervalMs: 10,
        what: 'an SFTP request to the held servers',
      });
    },
    async release() {
      await Promise.all(pipes.splice(0).map((pipe) => pipe.close()));
      for (const pid of pids) signalIfAlive(pid, 'SIGKILL');
    },
  };
}

/** The pids of `uid`'s internal-sftp servers: sshd's children that name themselves `<user>@internal-sftp`. */
async function sftpServers(uid: number): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const [status, cmdline] = await Promise.all([
        readFile(`/proc/${entry}/status`, 'utf8'),
        readFile(`/proc/${entry}/cmdline`, 'utf8'),
      ]);
      // The real uid from status: sshd's processes are not dumpable, so their /proc entry belongs to root.
      const realUid = Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]);
      if (realUid === uid && cmdline.includes('@internal-sftp')) pids.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}
