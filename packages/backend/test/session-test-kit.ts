import { access, readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { RelayEvent } from '@catalyst/protocol';
import { waitUntil } from '@catalyst/testkit';
import { expect } from 'vitest';
import type { ServiceSuite, ServiceUnderTest } from './service-harness.ts';

/** What the idea's sessions left on the test kit's VM (issue 11): their directories and their processes. */

/** The session a run's claude lived in (run:started records it). */
export function sessionOf(events: readonly RelayEvent[]): string | undefined {
  const started = events.find((event) => event.type === 'run:started');
  return started?.type === 'run:started' ? started.session?.id : undefined;
}

/**
 * The idea's session directories on the VM (`~/.catalyst-sessions` of the user `on` runs as, the bash user unless
 * `on` says otherwise: its ideas root is in that user's home).
 */
export async function sessionDirs(
  fixture: ServiceSuite,
  ideaId: string,
  on?: ServiceUnderTest,
): Promise<string[]> {
  const home = on === undefined ? fixture.sshd.users.bash.home : dirname(on.ideasRoot);
  const root = join(home, '.catalyst-sessions');
  try {
    await access(root);
  } catch {
    return [];
  }
  return (await readdir(root)).filter((name) => name.startsWith(ideaId));
}

/** How many claude processes of the idea run on the VM (by run tag and place). */
export async function claudesOf(
  fixture: ServiceSuite,
  ideaId: string,
  on?: ServiceUnderTest,
): Promise<number> {
  const processes = await fixture.runProcesses(ideaId, on);
  return processes.filter((process) => process.cmdline.startsWith(fixture.claudePath)).length;
}

/** Waits until the idea has no process and no session left on the VM. */
export async function expectNothingLeft(
  fixture: ServiceSuite,
  ideaId: string,
  on?: ServiceUnderTest,
): Promise<void> {
  await waitUntil(async () => (await fixture.runProcesses(ideaId, on)).length === 0, {
    timeoutMs: 15_000,
    what: 'the idea’s processes on the VM to be gone',
  });
  await waitUntil(async () => (await sessionDirs(fixture, ideaId, on)).length === 0, {
    timeoutMs: 15_000,
    what: 'the idea’s session files to be removed',
  });
}

/**
 * After a completed turn: nothing of the run is left but its claude, waiting warm for the next turn; deleting the
 * idea ends that too.
 */
export async function expectOnlyWarmClaudeThenDelete(
  fixture: ServiceSuite,
  ideaId: string,
  on: ServiceUnderTest = fixture.service,
): Promise<void> {
  const processes = await fixture.runProcesses(ideaId, on);
  expect(processes.map((process) => process.cmdline.startsWith(fixture.claudePath))).toEqual([true]);
  const response = await on.api(`/api/ideas/${ideaId}`, { method: 'DELETE' });
  expect(response.status).toBe(204);
  await expectNothingLeft(fixture, ideaId, on);
}
