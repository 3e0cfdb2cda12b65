import { waitUntil } from '@catalyst/testkit';
import { expect } from 'vitest';
import type { ServiceUnderTest } from '../service-harness.ts';
import type { Job } from '../support/in-process-host/jobs.ts';
import type { FastSuite } from './fast-harness.ts';

/**
 * session-test-kit.ts for the fast tier: what an idea's runs left on the in-process VM, its jobs (a claude, a tool's
 * process) and its sessions, instead of processes and session folders on the test kit's sshd.
 */

export { sessionOf } from '../session-test-kit.ts';

/** The idea's sessions kept on the VM (alive, or over and not yet removed). */
export function sessionDirs(fixture: FastSuite, ideaId: string): Promise<string[]> {
  return Promise.resolve(fixture.vm.jobs.sessionIds().filter((id) => id.startsWith(ideaId)));
}

/** What the kit reads of a suite: its in-process VM and the Catalyst on it (the fast tier's or a browser suite's). */
type OnVm = Pick<FastSuite, 'vm' | 'service'>;

/** The idea's jobs that still run: its sessions (named after it) and the runs started in its folder. */
export function liveJobsOf(fixture: OnVm, ideaId: string, on?: ServiceUnderTest): Job[] {
  const folder = `${(on ?? fixture.service).ideasRoot}/${ideaId}/`;
  return fixture.vm.jobs.live.filter(
    (job) => job.spec.tag.startsWith(`${ideaId}-`) || `${job.spec.cwd}/`.startsWith(folder),
  );
}

/** The idea's claude processes that run on the VM. */
export function claudeJobsOf(fixture: OnVm, ideaId: string, on?: ServiceUnderTest): Job[] {
  return liveJobsOf(fixture, ideaId, on).filter((job) => job.spec.argv[0] === fixture.vm.claudePath);
}

/** How many claude processes of the idea run on the VM. */
export function claudesOf(fixture: OnVm, ideaId: string, on?: ServiceUnderTest): Promise<number> {
  return Promise.resolve(claudeJobsOf(fixture, ideaId, on).length);
}

/** Waits until the idea has no job, no tool's process and no session left on the VM. */
export async function expectNothingLeft(
  fixture: FastSuite,
  ideaId: string,
  on?: ServiceUnderTest,
): Promise<void> {
  await waitUntil(
    async () =>
      liveJobsOf(fixture, ideaId, on).length === 0 && (await fixture.runProcesses(ideaId, on)).length === 0,
    { timeoutMs: 15_000, what: 'the idea’s jobs on the VM to be gone' },
  );
  await waitUntil(() => !fixture.vm.jobs.sessionIds().some((id) => id.startsWith(`${ideaId}-`)), {
    timeoutMs: 15_000,
    what: 'the idea’s sessions to be removed',
  });
}

/**
 * After a completed turn: nothing of the run is left but its claude, waiting warm for the next turn; deleting the
 * idea ends that too.
 */
export async function expectOnlyWarmClaudeThenDelete(
  fixture: FastSuite,
  ideaId: string,
  on: ServiceUnderTest = fixture.service,
): Promise<void> {
  const jobs = liveJobsOf(fixture, ideaId, on);
  expect(jobs.map((job) => job.spec.argv[0] === fixture.vm.claudePath)).toEqual([true]);
  expect(await fixture.runProcesses(ideaId, on)).toEqual([]);
  const response = await on.api(`/api/ideas/${ideaId}`, { method: 'DELETE' });
  expect(response.status).toBe(204);
  await expectNothingLeft(fixture, ideaId, on);
}
