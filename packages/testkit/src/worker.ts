import { chmod, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * End-to-end files run in several vitest workers at once. Whatever a file leaves on this machine under a fixed name
 * (the VM users and their homes, the local host's `~/.catalyst-sessions` and `$TMPDIR/catalyst-runs-<uid>`) is
 * named per worker, so two files in two workers never see each other's sessions, runs or settings.
 */

/**
 * The vitest worker slot this process runs in: 1 … maxWorkers (1 outside vitest), plus CATALYST_TEST_SLOT_OFFSET
 * when set: two test runs at once on one machine (a developer's test beside the suite) each give their own offset
 * (`CATALYST_TEST_SLOT_OFFSET=10`), so their workers' VM users, homes and claude settings stay apart too.
 */
export function workerSlot(): number {
  const slot = Number(process.env['VITEST_POOL_ID'] ?? '1');
  const offset = Number(process.env['CATALYST_TEST_SLOT_OFFSET'] ?? '0');
  return (
    (Number.isInteger(slot) && slot > 0 ? slot : 1) + (Number.isInteger(offset) && offset > 0 ? offset : 0)
  );
}

/** Appended to a per-worker name: empty in the first worker, so a lone run keeps the plain names. */
export function workerSuffix(slot: number = workerSlot()): string {
  return slot === 1 ? '' : `-w${String(slot)}`;
}

const SHARED_TMPDIR = 'CATALYST_TEST_SHARED_TMPDIR';

/** The temp dir every worker shares (the system's, before isolateWorker): for caches meant for all of them. */
export function sharedTmpDir(): string {
  return process.env[SHARED_TMPDIR] ?? tmpdir();
}

/** Where this worker's local HOME and TMPDIR live (the tests run as root: never the developer's own /root). */
export function workerRoot(slot: number = workerSlot()): string {
  return join('/tmp', `catalyst-test-worker-${String(slot)}`);
}

/**
 * Points HOME and TMPDIR of this worker at its own directories: the local host's sessions and run directories, and
 * every temp dir a test makes, stay apart from the other workers'. The directories are traversable by the VM test
 * users (an sshd reads its authorized keys from a temp dir as the target user); TMPDIR is sticky and world-writable
 * like /tmp. A test that needs the invoking user's real home (pnpm's store) reads it from passwd (os.userInfo).
 */
export async function isolateWorker(): Promise<{ home: string; tmp: string }> {
  process.env[SHARED_TMPDIR] ??= tmpdir();
  const root = workerRoot();
  const home = join(root, 'home');
  const tmp = join(root, 'tmp');
  await mkdir(home, { recursive: true });
  await mkdir(tmp, { recursive: true });
  await chmod(root, 0o755);
  await chmod(home, 0o700);
  await chmod(tmp, 0o1777);
  process.env['HOME'] = home;
  process.env['TMPDIR'] = tmp;
  return { home, tmp };
}
