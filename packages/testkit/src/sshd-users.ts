import { chmod, chown, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runTool, type RunToolOptions, type ToolResult } from './run-tool.ts';
import { workerSuffix } from './worker.ts';

/**
 * The login users a test sshd admits: one whose shell is bash, one whose shell is not (dash), root, and a spare one
 * (bash) that no shared fixture uses, for a test that changes what lies under its home (a small disk). Each vitest
 * worker has users of its own (`catalyst-bash-w2`, … from the second on): their homes hold sessions, runs and
 * claude's settings, which two files running at once must never share. Root too: `catalyst-root` (`-wN` from the
 * second worker on), another name for uid 0 with a home of its own (sessions live in the login user's home), never the
 * machine's own root: its dotfiles are the machine's (this one's ~/.bashrc runs `pyenv init`, whose rehash waits a
 * minute on a lock that a killed run can leave, and Debian's bash reads ~/.bashrc for every command sshd runs).
 */

export interface SshdUser {
  name: string;
  home: string;
  /** The login shell from passwd; sshd runs every command as `<shell> -c "<command>"` (field notes §9). */
  shell: string;
}

export interface SshdUsers {
  bash: SshdUser;
  dash: SshdUser;
  root: SshdUser;
  spare: SshdUser;
}

/** The bash user's ~/.bashrc prints these first, so tests can prove that a run wrapper strips rc output. */
export const RC_NOISE_STDOUT = 'rc-noise: stdout';
export const RC_NOISE_STDERR = 'rc-noise: stderr';

interface PasswdEntry extends SshdUser {
  uid: number;
  gid: number;
}

interface UserSpec {
  name: string;
  shell: string;
  /** A second name for root (uid 0, gid 0) with a home of its own. */
  isRootAlias?: boolean;
}

function userSpecs(): { bash: UserSpec; dash: UserSpec; spare: UserSpec; root: UserSpec } {
  const suffix = workerSuffix();
  return {
    bash: { name: `catalyst-bash${suffix}`, shell: '/bin/bash' },
    dash: { name: `catalyst-dash${suffix}`, shell: '/usr/bin/dash' },
    spare: { name: `catalyst-spare${suffix}`, shell: '/bin/bash' },
    root: { name: `catalyst-root${suffix}`, shell: '/bin/bash', isRootAlias: true },
  };
}
let stagingCount = 0;

function isRunningAsRoot(): boolean {
  return process.getuid?.() === 0;
}

/** Creates the test users if missing and repairs them if changed; safe from several test workers at once. */
export async function ensureTestUsers(): Promise<SshdUsers> {
  if (!isRunningAsRoot()) {
    throw new Error(
      `the sshd test kit must run as root (uid is ${String(process.getuid?.())}): ` +
        'it creates login users and starts an sshd that switches to them',
    );
  }
  // One after the other: runLocked serializes them anyway.
  const specs = userSpecs();
  const bash = await ensureUser(specs.bash);
  const dash = await ensureUser(specs.dash);
  const spare = await ensureUser(specs.spare);
  const root = await ensureUser(specs.root);
  await writeNoisyBashrc(bash);
  return { bash: toSshdUser(bash), dash: toSshdUser(dash), root: toSshdUser(root), spare: toSshdUser(spare) };
}

async function ensureUser(spec: UserSpec): Promise<PasswdEntry> {
  if ((await lookUpUser(spec.name)) === undefined) {
    const uid0 = spec.isRootAlias === true ? ['--non-unique', '--uid', '0', '--gid', '0'] : [];
    const args = [
      ...uid0,
      '--create-home',
      '--home-dir',
      join('/home', spec.name),
      '--shell',
      spec.shell,
      spec.name,
    ];
    // Exit 9 ("already exists"): another test worker created the user since our lookup.
    await runLocked('/usr/sbin/useradd', args, { acceptCodes: [9] });
  }
  let entry = await requireUser(spec.name);
  if (entry.shell !== spec.shell) {
    await runLocked('/usr/sbin/usermod', ['--shell', spec.shell, spec.name]);
    entry = { ...entry, shell: spec.shell };
  }
  await unlockAccount(spec.name);
  await mkdir(entry.home, { recursive: true, mode: 0o755 });
  // useradd adopts a home that already exists with its files and their old owner (a user deleted and re-added).
  await runTool('/usr/bin/chown', ['-R', `${String(entry.uid)}:${String(entry.gid)}`, entry.home]);
  return entry;
}

const USERS_LOCK = '/run/lock/catalyst-testkit-users.lock';

/**
 * useradd (shadow 4.13, Debian 12) looks the name up before it takes its lock: three concurrent calls for one
 * new name all exit 0, each overwriting the last, and the uid drifts. flock(1) serializes the calls across
 * test workers, and the kernel drops the lock when a holder dies.
 */
function runLocked(file: string, args: readonly string[], options: RunToolOptions = {}): Promise<ToolResult> {
  return runTool('/usr/bin/flock', ['--timeout', '30', USERS_LOCK, file, ...args], {
    ...options,
    timeoutMs: 45_000,
  });
}

/**
 * useradd writes `!` into the shadow password field, and with `UsePAM no` sshd refuses such an account as
 * locked (field notes §0).
 */
async function unlockAccount(name: string): Promise<void> {
  const { stdout } = await runTool('/usr/bin/getent', ['shadow', name]);
  const passwordField = stdout.split(':')[1];
  if (passwordField === undefined)
    throw new Error(`getent shadow ${name}: unexpected output ${JSON.stringify(stdout)}`);
  if (passwordField.startsWith('!')) await runLocked('/usr/sbin/usermod', ['-p', '*', name]);
}

async function requireUser(name: string): Promise<PasswdEntry> {
  const entry = await lookUpUser(name);
  if (entry === undefined) throw new Error(`user ${name} does not exist`);
  return entry;
}

async function lookUpUser(name: string): Promise<PasswdEntry | undefined> {
  // getent exits 2 when the key is not in the database.
  const { code, stdout } = await runTool('/usr/bin/getent', ['passwd', name], { acceptCodes: [2] });
  return code === 2 ? undefined : parsePasswdLine(stdout.trim());
}

function parsePasswdLine(line: string): PasswdEntry {
  const [name, , uid, gid, , home, shell, ...rest] = line.split(':');
  const entry = { name, uid: Number(uid), gid: Number(gid), home, shell };
  if (
    entry.name === undefined ||
    entry.home === undefined ||
    entry.shell === undefined ||
    rest.length > 0 ||
    !Number.isInteger(entry.uid) ||
    !Number.isInteger(entry.gid)
  ) {
    throw new Error(`unexpected passwd entry: ${JSON.stringify(line)}`);
  }
  return { name: entry.name, uid: entry.uid, gid: entry.gid, home: entry.home, shell: entry.shell };
}

function toSshdUser(entry: PasswdEntry): SshdUser {
  return { name: entry.name, home: entry.home, shell: entry.shell };
}

/**
 * Debian's default ~/.bashrc returns at once for non-interactive shells, yet bash sources it for every command
 * sshd runs (field notes §9); so the noise goes before Debian's lines, unlike an installer's appended lines.
 */
async function writeNoisyBashrc(user: PasswdEntry): Promise<void> {
  const debianDefault = await readFile('/etc/skel/.bashrc', 'utf8');
  const noise = [
    '# Written by @catalyst/testkit (sshd-users.ts): output a run wrapper must strip.',
    `echo "${RC_NOISE_STDOUT}"`,
    `echo "${RC_NOISE_STDERR}" >&2`,
    '',
  ].join('\n');
  const target = join(user.home, '.bashrc');
  // Write then rename: several starts may rewrite it at once, and a shell must never read half a file.
  const staging = `${target}.${String(process.pid)}-${String(++stagingCount)}.tmp`;
  await writeFile(staging, noise + debianDefault);
  await chmod(staging, 0o644);
  await chown(staging, user.uid, user.gid);
  await rename(staging, target);
}
