import { spawn } from 'node:child_process';
import { chmod, mkdir, stat, symlink, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { claudeBinaryPath, claudeVersion, createTempDir, type TempDir } from '@catalyst/testkit';
import { NO_GIT_WARNING } from '../src/host/host.ts';
import { createLocalHost } from '../src/host/local-host.ts';
import { describeHostCleanup, type BackendFixtureInput, type HostCleanupSetup } from './host-cleanup.ts';
import { describeHostContract } from './host-contract.ts';
import { describeTerminalContract } from './host-terminal-contract.ts';
import { hasLocalRunDir, scanLocalProcesses, watchRun } from './host-test-kit.ts';
import { describeRealClaude } from './real-claude-suite.ts';
import { bundledFixture } from './fixture-bundle.ts';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const fixture = fileURLToPath(new URL('./fixtures/backend-run.ts', import.meta.url));

/** One node process (the fixture bundled, no loader's CLI that would fork): SIGKILL reaches the host itself. */
function spawnLocalBackend(input: BackendFixtureInput) {
  return spawn(process.execPath, [bundledFixture(fixture), JSON.stringify(input)], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

function localSetup(shell: string): HostCleanupSetup {
  return async () => {
    const scratch = await createTempDir('local-host');
    return {
      host: createLocalHost({ shell, killGraceMs: 1000 }),
      scratchDir: scratch.path,
      scanProcesses: scanLocalProcesses,
      hasRunDir: hasLocalRunDir,
      cleanup: () => scratch.remove(),
      // Root may write almost anywhere; sysfs still refuses new files to root (EACCES).
      permissionDeniedPath: process.getuid?.() === 0 ? '/sys/catalyst-denied' : '/root/catalyst-denied',
      spawnBackend: (input) => spawnLocalBackend({ ...input, shell }),
    };
  };
}

// dash is Debian's /bin/sh; bash is /bin/sh elsewhere. The wrapper must behave the same under both.
for (const shell of ['/bin/sh', '/bin/bash']) {
  describeHostContract(`local ${shell}`, localSetup(shell));
}
describeTerminalContract('local', localSetup('/bin/sh'));
// The cleanup proofs under dash here; under bash they run over SSH (ssh-host.test.ts, the bash user).
describeHostCleanup('local /bin/sh', localSetup('/bin/sh'));

describe('local host specifics', () => {
  let scratch: TempDir;
  beforeEach(async () => {
    scratch = await createTempDir('local-specifics');
  });
  afterEach(async () => {
    await scratch.remove();
  });

  it("never sources ~/.bashrc under bash, though node's stdio is a socket (bash's rshd rule)", async () => {
    vi.stubEnv('HOME', scratch.path);
    try {
      await writeFile(`${scratch.path}/.bashrc`, `touch ${scratch.path}/sourced\n`);
      const handle = await createLocalHost({ shell: '/bin/bash' }).startRun({
        argv: ['sh', '-c', 'echo ran'],
        cwd: scratch.path,
      });
      expect((await watchRun(handle).finish()).stdout).toBe('ran\n');
      await expect(stat(`${scratch.path}/sourced`)).rejects.toMatchObject({ code: 'ENOENT' });
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it("gives a run an allow-list of the backend's environment, never its token or other secrets", async () => {
    const planted = {
      CATALYST_TOKEN: 'token-0123456789abcdef0123456789',
      AWS_SECRET_ACCESS_KEY: 'aws-secret',
    };
    vi.stubEnv('CATALYST_TOKEN', planted.CATALYST_TOKEN);
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', planted.AWS_SECRET_ACCESS_KEY);
    vi.stubEnv('LC_TIME', 'C.UTF-8');
    try {
      const handle = await createLocalHost().startRun({
        argv: ['sh', '-c', "tr '\\0' '\\n' </proc/self/environ"],
        cwd: scratch.path,
        env: { ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' },
      });
      const { stdout, outcome } = await watchRun(handle).finish();
      expect(outcome).toEqual({ kind: 'exited', code: 0, signal: null });
      const names = stdout.split('\n').map((line) => line.split('=')[0]);
      expect(stdout).not.toContain(planted.CATALYST_TOKEN);
      expect(stdout).not.toContain(planted.AWS_SECRET_ACCESS_KEY);
      expect(names).not.toContain('CATALYST_TOKEN');
      expect(names).toEqual(expect.arrayContaining(['PATH', 'HOME', 'LC_TIME', 'CATALYST_RUN_TAG']));
      expect(stdout).toContain('ANTHROPIC_BASE_URL=http://127.0.0.1:9\n');
    } finally {
      // As they were: the worker's next file runs in this process (vitest.config.ts).
      vi.unstubAllEnvs();
    }
  });

  it('keeps the mode of a 0600 file it overwrites atomically', async () => {
    const path = `${scratch.path}/secret.json`;
    await writeFile(path, 'old', { mode: 0o600 });
    await createLocalHost().writeFileAtomic(path, 'new');
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });

  it('preflight: a configured claude path wins, and its version is read', async () => {
    const preflight = await createLocalHost({ claudePath: claudeBinaryPath() }).preflight();
    expect(preflight).toMatchObject({
      claudePath: claudeBinaryPath(),
      foundVia: 'config',
      canRunWrapper: true,
    });
    expect(preflight.version).toContain(claudeVersion());
    expect(preflight.problems).toEqual([]);
  });

  it('preflight: a wrong configured path is reported, not replaced by a search', async () => {
    const preflight = await createLocalHost({ claudePath: `${scratch.path}/nope` }).preflight();
    expect(preflight.claudePath).toBeUndefined();
    expect(preflight.problems.join('\n')).toContain(`${scratch.path}/nope`);
  });

  async function fakeClaude(dir: string): Promise<string> {
    await mkdir(dir, { recursive: true });
    await writeFile(`${dir}/claude`, '#!/bin/sh\necho "9.9.9 (Claude Code)"\n');
    await chmod(`${dir}/claude`, 0o755);
    return `${dir}/claude`;
  }

  it('preflight: finds claude in a usual install location when PATH lacks it', async () => {
    const path = await fakeClaude(`${scratch.path}/.local/bin`);
    const host = createLocalHost({ discovery: { env: { PATH: '/usr/bin:/bin', HOME: scratch.path } } });
    expect(await host.preflight()).toMatchObject({
      claudePath: path,
      foundVia: 'known-location',
      version: '9.9.9 (Claude Code)',
    });
  });

  it('preflight: a machine without git is warned about (builds are not checkpointed), and runs still work', async () => {
    // A PATH with the wrapper's tools but not git: links to them alone.
    const bin = `${scratch.path}/bin`;
    await mkdir(bin);
    for (const tool of ['setsid', 'base64', 'mkfifo', 'grep', 'stat', 'sleep', 'flock', 'tail']) {
      await symlink(`/usr/bin/${tool}`, `${bin}/${tool}`);
    }
    const env = { PATH: bin, HOME: scratch.path };
    const without = await createLocalHost({ discovery: { env } }).preflight();
    expect(without).toMatchObject({ canRunWrapper: true, warnings: [NO_GIT_WARNING] });
    const withGit = await createLocalHost({
      discovery: { env: { ...env, PATH: `${bin}:/usr/bin` } },
    }).preflight();
    expect(withGit.warnings).toBeUndefined();
  });

  it("preflight: falls back to the login shell's PATH", async () => {
    const path = await fakeClaude(`${scratch.path}/zshrc-bin`);
    const loginShell = `${scratch.path}/fake-shell`;
    await writeFile(
      loginShell,
      `#!/bin/sh\necho "rc noise"\necho "@@PATH=/usr/bin:${scratch.path}/zshrc-bin"\n`,
    );
    await chmod(loginShell, 0o755);
    const env = { PATH: '/usr/bin:/bin', HOME: `${scratch.path}/empty-home` };
    const preflight = await createLocalHost({ discovery: { env, loginShell } }).preflight();
    expect(preflight).toMatchObject({ claudePath: path, foundVia: 'login-shell' });
  });

  it("preflight: the CLI this project installed is the last resort, after the machine's own", async () => {
    const bundled = await fakeClaude(`${scratch.path}/clone/node_modules/bin`);
    const bare = {
      env: { PATH: '/usr/bin:/bin', HOME: `${scratch.path}/empty-home` },
      loginShell: '/bin/sh',
    };
    expect(await createLocalHost({ discovery: bare, bundledClaudePath: bundled }).preflight()).toMatchObject({
      claudePath: bundled,
      foundVia: 'bundled',
      version: '9.9.9 (Claude Code)',
      problems: [],
    });
    const own = await fakeClaude(`${scratch.path}/.local/bin`);
    const withOwn = { ...bare, env: { ...bare.env, HOME: scratch.path } };
    expect(
      await createLocalHost({ discovery: withOwn, bundledClaudePath: bundled }).preflight(),
    ).toMatchObject({ claudePath: own, foundVia: 'known-location' });
  });
});

describeRealClaude('local', async () => {
  const home = await createTempDir('home');
  const work = await createTempDir('work');
  return {
    host: createLocalHost(),
    claudePath: claudeBinaryPath(),
    home: home.path,
    work: work.path,
    scratchDir: work.path,
    scanProcesses: scanLocalProcesses,
    hasRunDir: hasLocalRunDir,
    cleanup: async () => {
      await home.remove();
      await work.remove();
    },
  };
});
