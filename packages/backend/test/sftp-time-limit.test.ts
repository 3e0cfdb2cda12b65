import { randomBytes } from 'node:crypto';
import { chmod, stat } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { caught, stopAllSshd, waitUntil } from '@catalyst/testkit';
import { isCatalystError } from '../src/core/catalyst-error.ts';
import { createSshHost } from '../src/host/ssh/ssh-host.ts';
import { fifoOpenWaiters, makeFifo, releaseFifo } from './fifo-test-kit.ts';
import { createSharedSshd, sshHostConfig } from './ssh-test-kit.ts';

// Issue 25, finding 11: an SFTP call the host never answers (an open() of a FIFO through raw SFTP waits for the
// other end, and OpenSSH's sftp-server answers its requests one at a time; an append opens it, where a read now
// refuses it unopened, issue 39) fails within the host's file time limit;
// the session is replaced, so the host's later file calls go on. Stuck sessions hold their channels, so a host's
// pool may have none free: a file call still fails within the limit, and what opens late is not left open.

const getSshd = createSharedSshd();

afterAll(async () => {
  await stopAllSshd();
});

const LIMIT_MS = 500;

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
      await chmod(fifo, 0o666); // the VM's user opens it for writing
      try {
        const started = performance.now();
        const stuck = caught(host.appendFile(fifo, 'x'));
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
        // At its limit, not when something else ends the wait: the FIFO is released only after this, in `finally`.
        // The bound is loose for a loaded machine; the test's own timeout is far above it.
        expect(elapsed).toBeLessThan(LIMIT_MS + 5_000);
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

describe('the SSH host’s file time limit with every channel of the pool stuck', () => {
  it(
    'fails file calls and readWithin with HOST_TIMED_OUT, and ends what opens once the channels are freed',
    { timeout: 30_000 },
    async () => {
      const sshd = await getSshd();
      const user = sshd.users.bash;
      const { uid } = await stat(user.home);
      // One connection of 1 run + 2 control slots (channel-slots.ts): three stuck SFTP sessions fill it.
      const config = sshHostConfig(sshd, 'bash', { pool: { maxConnections: 1, maxRunsPerConnection: 1 } });
      const host = createSshHost(config, { fileTimeoutMs: LIMIT_MS });
      const dir = `${user.home}/catalyst-sftp-full-${randomBytes(4).toString('hex')}`;
      const fifos = ['a', 'b', 'c'].map((name) => `${dir}/fifo-${name}`);
      await host.mkdirp(dir);
      await host.writeFileAtomic(`${dir}/plain.txt`, 'plain');
      for (const fifo of fifos) {
        makeFifo(fifo);
        await chmod(fifo, 0o666); // the VM's user opens it for writing
      }
      try {
        for (const fifo of fifos) {
          const error = await caught(host.appendFile(fifo, 'x'));
          expect(isCatalystError(error) && error.code).toBe('HOST_TIMED_OUT');
        }
        await waitUntil(async () => (await fifoOpenWaiters(uid)).length === fifos.length, {
          timeoutMs: 5_000,
          what: 'three sftp-servers to wait in their FIFO’s open()',
        });
        expect(host.stats()).toMatchObject({ openConnections: 1, openChannels: 3, queued: 0 });
        // No channel free: the SFTP session this asks for is still queued in the pool at the limit.
        const statError = await caught(host.stat(`${dir}/plain.txt`));
        expect(isCatalystError(statError) && statError.code).toBe('HOST_TIMED_OUT');
        const readError = await caught(
          withinTestTime(host.readWithin({ root: dir, path: 'plain.txt', maxBytes: 100 })),
        );
        expect(isCatalystError(readError) && readError.code).toBe('HOST_TIMED_OUT');
        expect(host.stats()).toMatchObject({ openChannels: 3, queued: 2 });
        for (const fifo of fifos) await releaseFifo(fifo);
        // The stuck sftp-servers end, sshd frees their slots, and the queued opens go through: the readWithin's
        // channel is torn down at once, the SFTP session nobody waits for any more after its idle spell.
        await waitUntil(() => host.stats().openChannels === 0 && host.stats().queued === 0, {
          timeoutMs: 10_000,
          what: 'every channel of the pool to close',
        });
        expect((await host.readFile(`${dir}/plain.txt`)).toString()).toBe('plain');
        const read = await host.readWithin({ root: dir, path: 'plain.txt', maxBytes: 100 });
        expect(read).toMatchObject({ kind: 'file' });
      } finally {
        for (const fifo of fifos) await releaseFifo(fifo);
        await host.remove(dir);
        await host.close();
      }
    },
  );
});

/** Without a time limit of its own, a call waiting for the pool would wait for ever: here it fails the test. */
function withinTestTime<T>(action: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const gaveUp = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      reject(new Error('the call never answered'));
    }, LIMIT_MS + 5_000);
  });
  return Promise.race([action, gaveUp]).finally(() => {
    clearTimeout(timer);
  });
}
