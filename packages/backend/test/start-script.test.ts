import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { appendFile, chown, mkdir, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HostsResponseSchema } from '@catalyst/protocol';
import {
  claudeVersion,
  createTempDir,
  installSharedClaude,
  startSshd,
  waitUntil,
  type SshdHandle,
  type TempDir,
} from '@catalyst/testkit';

// `./scripts/start` as a newcomer runs it, on a machine without a claude of its own, with a hosts file that names a
// VM: the VM's preflight finds the VM's own claude (here ~/.local/bin/claude of the dash user, which sshd's PATH
// lacks), never a path that exists only on the machine running Catalyst. The start installs only what running
// Catalyst needs (issue 40: the first start on a bare machine in about 20 s), so the test kit's claude is not there
// for the local host to fall back to: it says how to install one.
//
// It runs on a copy of the checkout of its own: ./scripts/start installs the dependencies and builds the web app
// where it lives, and the checkout's node_modules is what every other test file, in the other worker, runs from at
// the same moment (a relinked `tsx` once failed a browser test and killed a vitest worker, issue 39).

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const START_TIMEOUT_MS = 240_000;

let sshd: SshdHandle;
let config: TempDir;
let checkout: TempDir;
let vmClaude: string;
let start: ChildProcess | undefined;
/** When the shared checkout's install was last written, before this file ran: it must not change. */
let sharedInstalledAt: number;

beforeAll(async () => {
  sshd = await startSshd();
  config = await createTempDir('start-script');
  checkout = await copyCheckout();
  sharedInstalledAt = await modifiedAt(join(repoRoot, 'node_modules', '.modules.yaml'));
  // The VM's own claude, where the native installer puts it.
  const user = sshd.users.dash;
  const { uid, gid } = await stat(user.home);
  // The test users' homes outlive a run: one stopped before its afterAll left its claude here.
  await rm(join(user.home, '.local'), { recursive: true, force: true });
  await mkdir(join(user.home, '.local', 'bin'), { recursive: true });
  await chown(join(user.home, '.local'), uid, gid);
  await chown(join(user.home, '.local', 'bin'), uid, gid);
  vmClaude = join(user.home, '.local', 'bin', 'claude');
  await symlink(await installSharedClaude(), vmClaude);
}, 60_000);

afterAll(async () => {
  await stopStart();
  await rm(join(sshd.users.dash.home, '.local'), { recursive: true, force: true });
  await checkout.remove();
  await config.remove();
  await sshd.stop();
});

/** The checkout's files as git sees them (tracked, and new ones not ignored), without node_modules or builds. */
async function copyCheckout(): Promise<TempDir> {
  const copy = await createTempDir('start-checkout');
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: repoRoot,
    encoding: 'utf8',
  });
  // A file deleted in the work tree but not yet in git's index is listed too: tar would fail on it.
  const files = listed.split('\0').filter((file) => file !== '' && existsSync(join(repoRoot, file)));
  execFileSync(
    '/bin/sh',
    ['-c', 'tar -C "$1" --null -T - -cf - | tar -C "$2" -xf -', 'copy', repoRoot, copy.path],
    {
      input: files.join('\0'),
    },
  );
  return copy;
}

/** Where node-gyp would have built cpu-features and ssh2's optional crypto binding in the copy. */
async function nativeBuildDirs(): Promise<string[]> {
  const store = join(checkout.path, 'node_modules', '.pnpm');
  const entries = await readdir(store);
  const dirs = entries.flatMap((entry) => {
    if (entry.startsWith('cpu-features@'))
      return [join(store, entry, 'node_modules', 'cpu-features', 'build')];
    if (entry.startsWith('ssh2@')) {
      return [join(store, entry, 'node_modules', 'ssh2', 'lib', 'protocol', 'crypto', 'build')];
    }
    return [];
  });
  expect(dirs, 'cpu-features and ssh2 are in the lockfile').toHaveLength(2);
  return dirs;
}

async function modifiedAt(path: string): Promise<number> {
  return (await stat(path)).mtimeMs;
}

/** A PATH with node and pnpm but no claude: the backend machine of a newcomer. */
function pathWithoutClaude(): string {
  const pnpm = execFileSync('/bin/sh', ['-c', 'command -v pnpm'], { encoding: 'utf8' }).trim();
  const path = [...new Set([dirname(process.execPath), dirname(pnpm), '/usr/bin', '/bin'])].join(':');
  const probe = spawnSync('/bin/sh', ['-c', 'command -v claude'], { encoding: 'utf8', env: { PATH: path } });
  expect(probe.stdout.trim(), 'a claude on the test PATH would hide the bug').toBe('');
  return path;
}

interface Started {
  url: string;
  output: () => string;
}

/**
 * The login page Catalyst prints at start: with a token set in CATALYST_TOKEN, as here, the page alone (the token is
 * the person's own, never echoed); the line is whole once its newline came.
 */
const LOGIN_PAGE = /(http:\/\/127\.0\.0\.1:\d+)\/login\n/;

/** Starts the copy's ./scripts/start and resolves with its URL once it prints the login page. */
async function runStart(env: Record<string, string>): Promise<Started> {
  const child = spawn(join(checkout.path, 'scripts', 'start'), [], {
    cwd: checkout.path,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  start = child;
  let output = '';
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => (output += chunk));
  child.stderr.on('data', (chunk: string) => (output += chunk));
  let url: string | undefined;
  await waitUntil(
    () => {
      url = LOGIN_PAGE.exec(output)?.[1];
      if (url === undefined && child.exitCode !== null)
        throw new Error(`scripts/start exited ${String(child.exitCode)}:\n${output}`);
      return url !== undefined;
    },
    {
      timeoutMs: START_TIMEOUT_MS,
      intervalMs: 200,
      what: `scripts/start to print its login link; so far:\n${output}`,
    },
  );
  return { url: url ?? '', output: () => output };
}

async function stopStart(): Promise<void> {
  const child = start;
  start = undefined;
  if (child?.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  process.kill(-child.pid, 'SIGTERM');
  await exited;
}

function startEnv(): Record<string, string> {
  const hostsFile = join(config.path, 'hosts.json');
  return {
    PATH: pathWithoutClaude(),
    // The invoking user's own home, not the test worker's: pnpm finds its store there.
    HOME: userInfo().homedir,
    LANG: 'C.UTF-8',
    CATALYST_PORT: '0',
    CATALYST_TOKEN: token,
    CATALYST_CONFIG_DIR: config.path,
    CATALYST_CONFIG_FILE: hostsFile,
    CATALYST_IDEAS_ROOT: `~/catalyst-start-${randomBytes(4).toString('hex')}`,
    CATALYST_LOG_LEVEL: 'warn',
    // As on a bare machine: no native build's result taken from pnpm's store, where an earlier install left it.
    npm_config_side_effects_cache: 'false',
  };
}

const token = randomBytes(32).toString('base64url');

describe('./scripts/start with a hosts file naming a VM, on a machine without claude', () => {
  it(
    "the VM's preflight finds the VM's own claude; the local host, with none here, says how to install one",
    async () => {
      await writeFile(
        join(config.path, 'hosts.json'),
        JSON.stringify({
          hosts: [
            {
              name: 'vm',
              kind: 'ssh',
              address: sshd.host,
              port: sshd.port,
              user: sshd.users.dash.name,
              privateKeyPath: sshd.clientKeyPath,
              hostKey: sshd.hostKeyLine,
            },
            { name: 'here', kind: 'local' },
          ],
        }),
      );
      const { url, output } = await runStart(startEnv());
      // A copy without node_modules or a build: the first start installs what running needs, and builds.
      expect(output()).toContain('installing what Catalyst needs to run');
      expect(output()).toContain('building the web app');
      // Issue 40, item 2: nothing of native builds (`gyp ERR!` screens offline), nor of builds pnpm skipped; none
      // was even tried (ssh2 works without its optional binding, as the VM below shows; cpu-features is optional).
      expect(output()).not.toMatch(/gyp|build scripts/i);
      for (const dir of await nativeBuildDirs()) expect(existsSync(dir), `${dir} was built`).toBe(false);
      expect(output()).toContain('sign in with the access token in CATALYST_TOKEN');
      expect(output()).not.toContain(token);

      const response = await fetch(`${url}/api/hosts`, { headers: { authorization: `Bearer ${token}` } });
      expect(response.status).toBe(200);
      const { hosts } = HostsResponseSchema.parse(await response.json());
      const vm = hosts.find((host) => host.name === 'vm');
      expect(vm).toMatchObject({
        reachable: true,
        preflight: { claudePath: vmClaude, foundVia: 'known-location', problems: [] },
      });
      expect(vm?.preflight?.version).toContain(claudeVersion());
      // Nothing for the tests only: no test kit (its claude is 186 MB to download), browser driver or linter.
      const installed = await readdir(join(checkout.path, 'node_modules', '.pnpm'));
      for (const name of ['@anthropic-ai+claude-code', 'playwright-core', 'eslint', 'typescript', 'vitest'])
        expect(installed.filter((entry) => entry.startsWith(`${name}@`))).toEqual([]);
      const here = hosts.find((host) => host.name === 'here');
      expect(here?.preflight?.claudePath).toBeUndefined();
      expect(here?.preflight?.problems.join('\n')).toContain('claude was not found');
      await stopStart();
    },
    START_TIMEOUT_MS + 30_000,
  );

  it(
    'starts again without installing or building when nothing changed, and builds again after a change to the web app',
    async () => {
      const installedAt = await modifiedAt(join(checkout.path, 'node_modules', '.modules.yaml'));
      const builtAt = await modifiedAt(join(checkout.path, 'packages', 'frontend', 'dist', 'index.html'));
      const again = await runStart(startEnv());
      expect(again.output()).toContain('workspace dependencies are up to date');
      expect(again.output()).toContain('the web app is up to date');
      expect(again.output()).not.toContain('installing');
      expect(again.output()).not.toContain('building the web app');
      expect((await fetch(`${again.url}/`)).status).toBe(200);
      expect(await modifiedAt(join(checkout.path, 'node_modules', '.modules.yaml'))).toBe(installedAt);
      expect(await modifiedAt(join(checkout.path, 'packages', 'frontend', 'dist', 'index.html'))).toBe(
        builtAt,
      );
      await stopStart();

      await appendFile(
        join(checkout.path, 'packages', 'frontend', 'src', 'main.tsx'),
        '\n// changed by a test\n',
      );
      const changed = await runStart(startEnv());
      expect(changed.output()).toContain('workspace dependencies are up to date');
      expect(changed.output()).toContain('building the web app');
      expect(
        await modifiedAt(join(checkout.path, 'packages', 'frontend', 'dist', 'index.html')),
      ).toBeGreaterThan(builtAt);
      await stopStart();

      // The checkout every other test file runs from was never installed into.
      expect(await modifiedAt(join(repoRoot, 'node_modules', '.modules.yaml'))).toBe(sharedInstalledAt);
    },
    3 * START_TIMEOUT_MS,
  );
});
