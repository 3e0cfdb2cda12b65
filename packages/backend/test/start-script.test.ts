import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chown, mkdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
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
// lacks), never a path that exists only on the machine running Catalyst. The local host still gets a claude.

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const START_TIMEOUT_MS = 240_000;

let sshd: SshdHandle;
let config: TempDir;
let vmClaude: string;
let start: ChildProcess | undefined;

beforeAll(async () => {
  sshd = await startSshd();
  config = await createTempDir('start-script');
  // The VM's own claude, where the native installer puts it.
  const user = sshd.users.dash;
  const { uid, gid } = await stat(user.home);
  await mkdir(join(user.home, '.local', 'bin'), { recursive: true });
  await chown(join(user.home, '.local'), uid, gid);
  await chown(join(user.home, '.local', 'bin'), uid, gid);
  vmClaude = join(user.home, '.local', 'bin', 'claude');
  await symlink(await installSharedClaude(), vmClaude);
}, 60_000);

afterAll(async () => {
  if (start?.pid !== undefined && start.exitCode === null) {
    process.kill(-start.pid, 'SIGTERM');
    await new Promise((resolve) => start?.once('exit', resolve));
  }
  await rm(join(sshd.users.dash.home, '.local'), { recursive: true, force: true });
  await config.remove();
  await sshd.stop();
});

/** A PATH with node and pnpm but no claude: the backend machine of a newcomer. */
function pathWithoutClaude(): string {
  const pnpm = execFileSync('/bin/sh', ['-c', 'command -v pnpm'], { encoding: 'utf8' }).trim();
  const path = [...new Set([dirname(process.execPath), dirname(pnpm), '/usr/bin', '/bin'])].join(':');
  const probe = spawnSync('/bin/sh', ['-c', 'command -v claude'], { encoding: 'utf8', env: { PATH: path } });
  expect(probe.stdout.trim(), 'a claude on the test PATH would hide the bug').toBe('');
  return path;
}

/** Starts ./scripts/start and resolves with its URL once it prints the login link. */
async function runStart(env: Record<string, string>): Promise<string> {
  const child = spawn(join(repoRoot, 'scripts', 'start'), [], {
    cwd: repoRoot,
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
      url = /(http:\/\/127\.0\.0\.1:\d+)\/login#token=/.exec(output)?.[1];
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
  return url ?? '';
}

describe('./scripts/start with a hosts file naming a VM, on a machine without claude', () => {
  it(
    "the VM's preflight finds the VM's own claude; the local host falls back to the one this project installed",
    async () => {
      const token = randomBytes(32).toString('base64url');
      const hostsFile = join(config.path, 'hosts.json');
      await writeFile(
        hostsFile,
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
      const url = await runStart({
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
      });

      const response = await fetch(`${url}/api/hosts`, { headers: { authorization: `Bearer ${token}` } });
      expect(response.status).toBe(200);
      const { hosts } = HostsResponseSchema.parse(await response.json());
      const vm = hosts.find((host) => host.name === 'vm');
      expect(vm).toMatchObject({
        reachable: true,
        preflight: { claudePath: vmClaude, foundVia: 'known-location', problems: [] },
      });
      expect(vm?.preflight?.version).toContain(claudeVersion());
      const here = hosts.find((host) => host.name === 'here');
      expect(here?.preflight?.claudePath, 'the local host found no claude').toBeDefined();
      expect(here?.preflight?.problems).toEqual([]);
    },
    START_TIMEOUT_MS + 30_000,
  );
});
