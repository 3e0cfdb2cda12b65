import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { signalIfAlive, waitUntil } from '@catalyst/testkit';
import type { JobLimits } from '../src/core/vm-job-shell.ts';
import type { AttachmentEnd, JobAttachment } from '../src/host/vm-jobs.ts';
import {
  expectNothingLeft,
  supervisorOf,
  within,
  type HostTestContext,
  type HostTestSetup,
} from './host-test-kit.ts';

/**
 * Sessions that live on the host (issue 11; core/vm-job-shell.ts, host/vm-jobs.ts), one suite for every
 * adapter: output followed from a byte offset, exactly once across detach and re-attach; a detach stops nothing;
 * one attacher at a time; and every way a session ends (input closed, cancel, stop from outside, the warm idle
 * limit, the lease, the detached limit) leaves no process carrying its id.
 */

// The job: echoes every line; `spawn` starts a background sleep that carries the session's tag like any child.
const ECHO_JOB = `while IFS= read -r l; do printf 'got %s\\n' "$l"; printf 'err %s\\n' "$l" >&2; case $l in *spawn*) (sleep 300 &) ;; esac; done; echo bye`;

const RELAXED: JobLimits = {
  warmIdleSeconds: 600,
  leaseSeconds: 600,
  detachedSeconds: 600,
  maxLifetimeSeconds: 600,
  graceSeconds: 1,
};

interface Follower {
  attachment: JobAttachment;
  text(): string;
  errors(): string;
  waitFor(text: string): Promise<void>;
  ended: Promise<AttachmentEnd>;
}

function follow(attachment: JobAttachment): Follower {
  let out = '';
  let err = '';
  const read = async (stream: AsyncIterable<Uint8Array>, add: (text: string) => void) => {
    for await (const chunk of stream) add(Buffer.from(chunk).toString('utf8'));
  };
  const drained = Promise.all([
    read(attachment.stdout, (t) => (out += t)),
    read(attachment.stderr, (t) => (err += t)),
  ]);
  return {
    attachment,
    text: () => out,
    errors: () => err,
    waitFor: (text) =>
      waitUntil(() => out.includes(text), {
        timeoutMs: 10_000,
        intervalMs: 10,
        what: `output ${JSON.stringify(text)}`,
      }),
    ended: drained.then(() => attachment.ended),
  };
}

export function describeVmJobs(name: string, setup: HostTestSetup): void {
  describe(`sessions on the host: ${name}`, () => {
    let context: HostTestContext;
    const started: string[] = [];

    const start = async (limits: Partial<JobLimits> = {}): Promise<string> => {
      const sessionId = `s${randomBytes(8).toString('hex')}`;
      started.push(sessionId);
      await context.host.jobs.start({
        sessionId,
        argv: ['sh', '-c', ECHO_JOB],
        cwd: context.scratchDir,
        limits: { ...RELAXED, ...limits },
      });
      return sessionId;
    };
    const attach = async (sessionId: string, offsets = { stdout: 0, stderr: 0 }) =>
      follow(await context.host.jobs.attach(sessionId, offsets));
    const statusOf = async (sessionId: string) =>
      (await context.host.jobs.list()).find((info) => info.sessionId === sessionId);

    /** The supervisor is gone and has written the status (a stop returns once the job is stopped). */
    const untilOver = (sessionId: string, timeoutMs = 10_000) =>
      waitUntil(async () => (await statusOf(sessionId))?.isAlive !== true, {
        timeoutMs,
        what: `session ${sessionId} to be over`,
      });

    beforeEach(async () => {
      context = await setup();
    });
    afterEach(async () => {
      for (const sessionId of started.splice(0)) {
        await context.host.jobs.stop(sessionId);
        await expectNothingLeft(context, sessionId, 10_000);
        await untilOver(sessionId);
        await context.host.jobs.remove(sessionId);
      }
      await context.host.close();
      await context.cleanup();
    });

    it('follows the output from an offset: a detach stops nothing, a re-attach continues exactly', async () => {
      const sessionId = await start();
      const first = await attach(sessionId);
      first.attachment.writeLine('{"n":1}');
      await first.waitFor('got {"n":1}\n');
      const offset = Buffer.byteLength(first.text());
      first.attachment.detach();
      expect(await first.ended).toEqual(expect.objectContaining({ kind: 'detached' }));
      expect((await context.scanProcesses(sessionId)).length).toBeGreaterThan(0);

      const second = await attach(sessionId, { stdout: offset, stderr: 0 });
      second.attachment.writeLine('{"n":2}');
      await second.waitFor('got {"n":2}\n');
      expect(second.text()).toBe('got {"n":2}\n');
      second.attachment.endInput();
      expect(await second.ended).toEqual({ kind: 'session_ended', code: 0, reason: 'exit' });
      expect(second.text()).toBe('got {"n":2}\nbye\n');
      expect(second.errors()).toBe('err {"n":1}\nerr {"n":2}\n');
      expect(await statusOf(sessionId)).toMatchObject({ isAlive: false, stdoutBytes: offset + 16 });
      await expectNothingLeft(context, sessionId, 10_000);
    });

    it('one attacher at a time: a second is refused until the first detaches', async () => {
      const sessionId = await start();
      const first = await attach(sessionId);
      // Holding the session once its start marker is out (before, a second attach could win the lock).
      expect(await first.attachment.ready).toBe(true);
      const second = await attach(sessionId);
      expect(await second.attachment.ready).toBe(false);
      expect(await second.ended).toEqual(expect.objectContaining({ kind: 'refused', code: 'SESSION_BUSY' }));
      first.attachment.detach();
      await first.ended;
      const third = await attach(sessionId);
      third.attachment.writeLine('{"n":3}');
      await third.waitFor('got {"n":3}');
      third.attachment.detach();
      await third.ended;
    });

    it('a session that ended while nobody was attached is read to its end on re-attach', async () => {
      const sessionId = await start();
      const first = await attach(sessionId);
      first.attachment.writeLine('{"n":1}');
      first.attachment.endInput();
      first.attachment.detach();
      await first.ended;
      await untilOver(sessionId, 10_000);
      const again = await attach(sessionId);
      expect(await again.ended).toEqual({ kind: 'session_ended', code: 0, reason: 'exit' });
      expect(again.text()).toBe('got {"n":1}\nbye\n');
    });

    it('cancel stops the job and everything it started', async () => {
      const sessionId = await start();
      const follower = await attach(sessionId);
      follower.attachment.writeLine('{"spawn":1}');
      await follower.waitFor('got {"spawn":1}');
      follower.attachment.cancel();
      expect(await follower.ended).toEqual(
        expect.objectContaining({ kind: 'session_ended', reason: 'cancel' }),
      );
      await expectNothingLeft(context, sessionId, 10_000);
    });

    it('a stop from outside, with nobody attached, ends it as cancelled', async () => {
      const sessionId = await start();
      const follower = await attach(sessionId);
      follower.attachment.writeLine('{"spawn":1}');
      await follower.waitFor('got {"spawn":1}');
      follower.attachment.detach();
      await follower.ended;
      await context.host.jobs.stop(sessionId);
      await expectNothingLeft(context, sessionId, 10_000);
      await untilOver(sessionId);
      expect(await statusOf(sessionId)).toMatchObject({ isAlive: false, status: { reason: 'cancel' } });
    });

    it('the warm idle limit closes its input; the job exits as it would at EOF', async () => {
      const sessionId = await start({ warmIdleSeconds: 1 });
      const follower = await attach(sessionId);
      expect(await follower.ended).toEqual({ kind: 'session_ended', code: 0, reason: 'idle' });
      expect(follower.text()).toBe('bye\n');
      await expectNothingLeft(context, sessionId, 10_000);
    });

    it('idle with no backend past the lease: its input is closed', async () => {
      const sessionId = await start({ leaseSeconds: 1 });
      await untilOver(sessionId, 10_000);
      expect(await statusOf(sessionId)).toMatchObject({ status: { code: 0, reason: 'backend_gone' } });
      await expectNothingLeft(context, sessionId, 10_000);
    });

    it('a turn left without a backend past the detached limit is stopped, with what it started', async () => {
      const sessionId = await start({ detachedSeconds: 2, leaseSeconds: 1 });
      const follower = await attach(sessionId);
      follower.attachment.markTurn(true);
      follower.attachment.writeLine('{"spawn":1}');
      await follower.waitFor('got {"spawn":1}');
      follower.attachment.detach();
      await follower.ended;
      await untilOver(sessionId, 15_000);
      expect(await statusOf(sessionId)).toMatchObject({ status: { reason: 'detached_limit' } });
      await expectNothingLeft(context, sessionId, 10_000);
    });

    // Issue 25, item 1: an OOM kill, a reboot or logind's KillUserProcesses SIGKILLs the supervisor; nothing is
    // left to write the status, and an attacher followed a dead session for ever.
    it('a supervisor killed without a word: the attachment ends the session as vanished, stopping what is left', async () => {
      const sessionId = await start();
      const follower = await attach(sessionId);
      follower.attachment.markTurn(true);
      follower.attachment.writeLine('{"spawn":1}');
      await follower.waitFor('got {"spawn":1}');
      const supervisor = await supervisorOf(sessionId);
      expect(supervisor.pids.length).toBeGreaterThan(0);
      for (const pid of supervisor.pids) process.kill(pid, 'SIGKILL');
      expect(await within(follower.ended, 10_000, 'the end of a dead session')).toEqual({
        kind: 'session_ended',
        code: 137,
        reason: 'vanished',
      });
      await expectNothingLeft(context, sessionId, 10_000);
      expect(await statusOf(sessionId)).toMatchObject({ isAlive: false, status: { reason: 'vanished' } });
    });

    // Issue 25, items 1 and 5: after a reboot the pids written in the session dir belong to other processes.
    it('a session whose pids now belong to other processes (a reboot) is not alive, ends once, and kills none of them', async () => {
      const sessionId = await start();
      const other = await start();
      const bystander = await attach(other);
      bystander.attachment.writeLine('{"n":1}');
      await bystander.waitFor('got {"n":1}');
      const { pids, dir } = await supervisorOf(sessionId);
      const otherJob = (await readFile(join((await supervisorOf(other)).dir ?? '', 'job'), 'utf8')).trim();
      // A job whose supervisor was killed a moment before may have ended by itself: as wanted.
      for (const pid of [...pids, ...(await context.scanProcesses(sessionId)).map((p) => p.pid)]) {
        signalIfAlive(pid, 'SIGKILL');
      }
      await expectNothingLeft(context, sessionId, 10_000);
      // The supervisor's pid is now another live process of this user (the other session's job), and so is the
      // job's: a stop or a take-up must neither take it for the session nor signal it or its group.
      await writeFile(join(dir ?? '', 'sup'), `${otherJob}\n`);
      await writeFile(join(dir ?? '', 'job'), `${otherJob}\n`);
      expect(await statusOf(sessionId)).toMatchObject({ isAlive: false });
      expect((await statusOf(sessionId))?.status).toBeUndefined();
      await context.host.jobs.stop(sessionId);

      const again = await attach(sessionId);
      expect(await within(again.ended, 10_000, 'the end of a dead session')).toEqual({
        kind: 'session_ended',
        code: 137,
        reason: 'cancel',
      });
      expect(await statusOf(sessionId)).toMatchObject({ isAlive: false, status: { reason: 'cancel' } });
      await context.host.jobs.remove(sessionId);
      bystander.attachment.writeLine('{"n":2}');
      await bystander.waitFor('got {"n":2}');
      expect(await statusOf(other)).toMatchObject({ isAlive: true });
      bystander.attachment.detach();
      await bystander.ended;
    });

    it('lists sessions, and removes one only once it is over', async () => {
      const sessionId = await start();
      expect(await statusOf(sessionId)).toMatchObject({ isAlive: true, stdoutBytes: 0 });
      await expect(context.host.jobs.remove(sessionId)).rejects.toMatchObject({ code: 'SESSION_BUSY' });
      await context.host.jobs.stop(sessionId);
      await untilOver(sessionId, 10_000);
      await context.host.jobs.remove(sessionId);
      expect(await statusOf(sessionId)).toBeUndefined();
      const gone = await attach(sessionId);
      expect(await gone.ended).toEqual(expect.objectContaining({ kind: 'refused', code: 'SESSION_GONE' }));
    });
  });
}
