import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTempDir, waitUntil, type TempDir } from '@catalyst/testkit';
import { createLocalHost } from '../src/host/local-host.ts';
import { createFollowerId } from '../src/host/job-follower.ts';
import type { JobAttachment } from '../src/host/vm-jobs.ts';
import type { Host } from '../src/host/host.ts';
import { expectNothingLeft, scanLocalProcesses } from './host-test-kit.ts';

// Issue 39: an attach for the follower (a run) whose own earlier attachment still holds the session on the host takes
// it over at once; any other attach is refused while the holder is heard from, as before. The whole path over a
// frozen SSH connection is in job-reattach.test.ts.

const LIMITS = {
  warmIdleSeconds: 600,
  leaseSeconds: 600,
  detachedSeconds: 600,
  maxLifetimeSeconds: 600,
  graceSeconds: 1,
};
const ECHO_JOB = `while IFS= read -r l; do printf 'got %s\\n' "$l"; done`;

let host: Host;
let scratch: TempDir;
let sessionId: string;

beforeEach(async () => {
  scratch = await createTempDir('session-follower');
  host = createLocalHost({ killGraceMs: 1000 });
  sessionId = `s${randomBytes(8).toString('hex')}`;
  await host.jobs.start({ sessionId, argv: ['sh', '-c', ECHO_JOB], cwd: scratch.path, limits: LIMITS });
});

afterEach(async () => {
  await host.jobs.stop(sessionId);
  await expectNothingLeft({ scanProcesses: scanLocalProcesses }, sessionId, 10_000);
  await host.close();
  await scratch.remove();
});

/** Everything the attachment printed on stdout so far, read in the background. */
function readAll(attachment: JobAttachment): () => string {
  let text = '';
  void (async () => {
    for await (const chunk of attachment.stdout) text += Buffer.from(chunk).toString('utf8');
  })();
  return () => text;
}

describe('an attach for the follower that holds the session', () => {
  it('takes over its own earlier attachment at once; another follower, or none, is refused', async () => {
    const follower = createFollowerId();
    const offsets = { stdout: 0, stderr: 0 };
    const first = await host.jobs.attach(sessionId, offsets, { follower });
    expect(await first.ready).toBe(true);

    for (const options of [{ follower: createFollowerId() }, {}]) {
      const other = await host.jobs.attach(sessionId, offsets, options);
      expect(await other.ready).toBe(false);
      expect(await other.ended).toMatchObject({ kind: 'refused', code: 'SESSION_BUSY' });
    }

    // The first is never detached here: its channel stays open, as one the VM has not noticed is gone.
    const again = await host.jobs.attach(sessionId, offsets, { follower });
    expect(await again.ready).toBe(true);
    expect(await first.ended).toMatchObject({ kind: 'detached' });
    const text = readAll(again);
    again.writeLine('{"n":1}');
    await waitUntil(() => text().includes('got {"n":1}\n'), { timeoutMs: 10_000, what: 'the echo' });
    again.detach();
    await again.ended;
  });

  it('refuses a follower that is not hex, before opening a channel', async () => {
    await expect(
      host.jobs.attach(sessionId, { stdout: 0, stderr: 0 }, { follower: 'x y' }),
    ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});
