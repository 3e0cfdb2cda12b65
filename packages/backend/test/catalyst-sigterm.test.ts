import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { connect } from 'node:net';
import { rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { IdeaViewSchema } from '@catalyst/protocol';
import { stopAllSshd, waitUntil } from '@catalyst/testkit';
import { fifoOpenWaiters } from './fifo-test-kit.ts';
import { prepareService } from './service-config.ts';
import { createSharedSshd } from './ssh-test-kit.ts';

// Issue 25, finding 11: Catalyst's own entry (src/main.ts) stops on SIGTERM within its limit while a file call to
// its host is stuck (SFTP's open() of a FIFO never returns), where it used to need SIGKILL. The host's file time
// limit is short here (CATALYST_FILE_TIMEOUT_MS). Since issue 39 a FIFO at meta.json is refused unopened (an lstat
// first): what is left is the moment between that lstat and the open, which a process on the VM that swaps the
// file for a FIFO again and again wins now and then; the time limit still bounds that call.

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const main = fileURLToPath(new URL('../src/main.ts', import.meta.url));
const getSshd = createSharedSshd();
const FILE_TIMEOUT_MS = 2_000;
/**
 * The file limit, then the rest of the shutdown (a connection still open is cut 2 s into the HTTP server's close).
 * Far below main.ts's own backstop (30 s), which would exit 1.
 */
const STOP_LIMIT_MS = FILE_TIMEOUT_MS + 8_000;
const LOGIN_LINK = /(http:\/\/[\d.]+:\d+)\/login#token=(\S+)/;

afterAll(async () => {
  await stopAllSshd();
});

describe('SIGTERM', () => {
  it(
    'stops Catalyst within its limit while a file call to the host is stuck and a connection sent nothing',
    { timeout: 75_000 },
    async () => {
      const sshd = await getSshd();
      const user = sshd.users.bash;
      const { uid } = await stat(user.home);
      const { configDir, ideasRoot, env } = await prepareService({ sshd, user, claudePath: '/usr/bin/true' });
      const child = spawn(process.execPath, ['--import', 'tsx', main], {
        cwd: repoRoot,
        env: {
          PATH: process.env['PATH'] ?? '/usr/bin:/bin',
          ...env,
          CATALYST_FILE_TIMEOUT_MS: String(FILE_TIMEOUT_MS),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const exited = once(child, 'exit');
      let output = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
      let swapper: ChildProcess | undefined;
      try {
        await waitUntil(() => LOGIN_LINK.test(output), {
          timeoutMs: 20_000,
          what: `the login link (output: ${output})`,
        });
        const [, url = '', token = ''] = LOGIN_LINK.exec(output) ?? [];
        const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
        const created = await fetch(`${url}/api/ideas`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ title: 'Stuck', description: 'e2e' }),
        });
        const idea = z.object({ idea: IdeaViewSchema }).parse(await created.json()).idea;
        swapper = swapForFifo(join(ideasRoot, idea.id));
        const get = () =>
          fetch(`${url}/api/ideas/${idea.id}`, { headers }).then(
            (response) => response.status,
            () => 'failed',
          );
        // GETs, one at a time, until one's open() meets the FIFO after its lstat met the file.
        const start = () => {
          const attempt = { isDone: false, status: get() };
          void attempt.status.then(() => (attempt.isDone = true));
          return attempt;
        };
        let attempt = start();
        await waitUntil(
          async () => {
            if (attempt.isDone) attempt = start();
            return (await fifoOpenWaiters(uid)).length > 0;
          },
          { timeoutMs: 45_000, intervalMs: 10, what: 'a GET of the idea to wait in the FIFO’s open()' },
        );
        const stuck = attempt.status;
        swapper.kill('SIGKILL');
        // A browser's preconnect: a connection that never sends a request, which Node's close() waited for.
        const { port } = new URL(url);
        const idle = connect(Number(port), '127.0.0.1');
        await once(idle, 'connect');
        const idleClosed = once(idle, 'close');
        const started = performance.now();
        child.kill('SIGTERM');
        // A deadline, not a pause: without it a Catalyst that never stops would fail the test only at its timeout.
        const code = await Promise.race([
          exited.then(([exitCode]: unknown[]) => exitCode),
          delay(STOP_LIMIT_MS).then(() => 'still running'),
        ]);
        const elapsed = performance.now() - started;
        expect({ code, output }).toMatchObject({ code: 0 });
        expect(elapsed).toBeLessThan(STOP_LIMIT_MS);
        // The stuck request was answered (its host unavailable: it did not answer in time) before Catalyst went.
        expect(await stuck).toBe(503);
        await idleClosed;
      } finally {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGKILL');
          await exited;
        }
        swapper?.kill('SIGKILL');
        // The FIFO that holds the open() was swapped away: nothing can open it by its name any more.
        for (const pid of await fifoOpenWaiters(uid)) process.kill(pid, 'SIGKILL');
        await waitUntil(async () => (await fifoOpenWaiters(uid)).length === 0, {
          timeoutMs: 5_000,
          what: 'nothing left waiting on the FIFO',
        });
        await rm(ideasRoot, { recursive: true, force: true });
        await configDir.remove();
      }
    },
  );
});

/** A process on the VM that puts a FIFO in place of the idea's meta.json and the file back, over and over. */
function swapForFifo(ideaDir: string): ChildProcess {
  const script =
    'cp meta.json real.tmp; chmod 644 real.tmp; ' +
    'while :; do mkfifo -m 644 f.tmp; mv -f f.tmp meta.json; cp -p real.tmp r.tmp; mv -f r.tmp meta.json; done';
  return spawn('sh', ['-c', script], { cwd: ideaDir, stdio: 'ignore' });
}
