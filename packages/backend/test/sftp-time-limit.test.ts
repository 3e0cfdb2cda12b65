import { randomBytes } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { stopAllSshd, waitUntil } from '@catalyst/testkit';
import { isCatalystError } from '../src/core/catalyst-error.ts';
import { createSshHost } from '../src/host/ssh/ssh-host.ts';
import { fifoOpenWaiters, makeFifo, releaseFifo } from './fifo-test-kit.ts';
import { createSharedSshd, sshHostConfig } from './ssh-test-kit.ts';

// Issue 25, finding 11: an SFTP call the host never answers (an open() of a FIFO through raw SFTP waits for a
// writer, and OpenSSH's sftp-server answers its requests one at a time) fails within the host's file time limit;
// the session is replaced, so the host's later file calls go on.

const getSshd = createSharedSshd();

afterAll(async () => {
  await stopAllSshd();
});

const LIMIT_MS = 500;

async function caught(action: Promise<unknown>): Promise<unknown> {
  try {
    await action;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('the SSH host’s file time limit', () => {
  it(
    'fails a call stuck on the host with HOST_TIMED_OUT, replaces the session, and later calls go on',
    { timeout: 15_000 },
    async () => {
      const sshd = await getSshd();
      const user = sshd.users.bash;
      const { uid } = await stat(user.home);
      const host = createSshHost(sshHostConfig(sshd, 'bash'), { fileTimeoutMs: LIMIT_MS });
      const dir = `${user.home}/catalyst-sftp-limit-${randomBytes(4).toString('hex')}`;
      const fifo = `${dir}/fifo`;
      await host.mkdirp(dir);
      await host.writeFileAtomic(`${dir}/plain.txt`, 'plain');
      makeFifo(fifo);
      try {
        const started = performance.now();
        const stuck = caught(host.readFile(fifo));
        await waitUntil(async () => (await fifoOpenWaiters(uid)).length === 1, {
          timeoutMs: 5_000,
          what: 'the sftp-server to wait in the FIFO’s open()',
        });
        // Behind the stuck open on the same session: sftp-server never reads it.
        const behind = caught(host.stat(`${dir}/plain.txt`));
        const error = await stuck;
        const elapsed = performance.now() - started;
        expect(isCatalystError(error) && { code: error.code, path: error.details['path'] }).toEqual({
          code: 'HOST_TIMED_OUT',
          path: fifo,
        });
        expect(error instanceof Error && error.message).toMatch(/did not answer within 500 ms/);
        expect(elapsed).toBeGreaterThanOrEqual(LIMIT_MS - 10);
        expect(elapsed).toBeLessThan(LIMIT_MS + 1_500);
        const behindError = await behind;
        expect(isCatalystError(behindError) && behindError.code).toBe('HOST_TIMED_OUT');
        // A new session: the host's files answer again, while the old one still waits on the VM.
        expect((await host.readFile(`${dir}/plain.txt`)).toString()).toBe('plain');
        expect(await host.stat(`${dir}/plain.txt`)).toMatchObject({ kind: 'file', size: 5 });
        expect(await fifoOpenWaiters(uid)).toHaveLength(1);
      } finally {
        await releaseFifo(fifo);
        await host.remove(dir);
        await host.close();
      }
      // The stuck session was closed by Catalyst: once its open() returns, nothing of it is left waiting.
      await waitUntil(async () => (await fifoOpenWaiters(uid)).length === 0, {
        timeoutMs: 5_000,
        what: 'the stuck sftp-server to end',
      });
    },
  );
});
