import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createTempDir, opensshFingerprint, writeSshClientConfig, type TempDir } from '@catalyst/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useServiceFixture, type ServiceUnderTest } from '../../backend/test/service-harness.ts';
import { expectNoCliLeftAfterEach, runCli, startCli } from './cli-process.ts';

// `catalyst hosts` end to end (issue 28): a Catalyst that reads an ssh config the test writes, with the test kit's
// sshd as the VM `devbox`; the host added by its alias, its key (known nowhere) shown, confirmed by the fingerprint
// the CLI printed, the check passing, the host listed, then removed once asked to when it holds an idea.

const suite = useServiceFixture();
let dir: TempDir;
let sshConfig: string;

beforeAll(async () => {
  dir = await createTempDir('cli-hosts');
  const { sshd } = suite;
  ({ configPath: sshConfig } = await writeSshClientConfig(sshd, {
    dir: dir.path,
    hosts: { devbox: sshd.users.bash },
  }));
});
expectNoCliLeftAfterEach();
afterAll(async () => {
  await dir.remove();
});

/** Another Catalyst that reads the test's ssh config, and `catalyst hosts …` against it. */
async function startCatalyst() {
  const catalyst = await suite.startAnother({ env: { CATALYST_SSH_CONFIG_FILE: sshConfig } });
  const tokenFile = join(dir.path, `token-${String(Date.now())}`);
  await writeFile(tokenFile, `${catalyst.catalyst.token}\n`, { mode: 0o600 });
  const argsFor = (args: string[]) => [
    '--url',
    catalyst.catalyst.url,
    '--token-file',
    tokenFile,
    'hosts',
    ...args,
  ];
  return {
    catalyst,
    hosts: (...args: string[]) => runCli(argsFor(args)),
    atTerminal: (...args: string[]) => startCli(argsFor(args), { atTerminal: true }),
  };
}

async function createIdeaOn(catalyst: ServiceUnderTest, host: string): Promise<void> {
  const created = await catalyst.api('/api/ideas', {
    method: 'POST',
    body: JSON.stringify({ title: `On ${host}`, host }),
  });
  expect(created.status).toBe(201);
}

describe('catalyst hosts', () => {
  it('adds a VM by its alias, shows its unknown key, trusts it by fingerprint, lists it, and removes it', async () => {
    const { catalyst, hosts } = await startCatalyst();
    const ideasRoot = join(suite.sshd.users.bash.home, `catalyst-e2e-cli-hosts-${String(Date.now())}`);
    try {
      expect(await hosts('aliases')).toMatchObject({ code: 0, stdout: 'devbox\n' });

      // Known nowhere: the check stops at the host key, prints it and how to confirm it, and exits 1.
      const added = await hosts(
        'add',
        'devbox',
        '--claude-path',
        suite.claudePath,
        '--ideas-root',
        ideasRoot,
      );
      expect(added.code, added.stderr).toBe(1);
      const port = String(suite.sshd.port);
      expect(added.stdout).toContain(`Added devbox (devbox): ideas in ${ideasRoot}.\ndevbox:\n`);
      expect(added.stdout).toMatch(/^ {2}resolve {3}ok {7}\S/m);
      expect(added.stdout).toMatch(/^ {2}host-key {2}failed {3}\S/m);
      expect(added.stdout).toMatch(/^ {2}claude {4}skipped {2}not checked: an earlier step failed$/m);
      expect(added.stdout).toContain('devbox is not ready.\n');
      expect(added.stdout).toContain(`The host key of [127.0.0.1]:${port} is known nowhere`);
      expect(added.stdout).toContain(
        'Compare it on the VM’s console with: ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub\n',
      );
      const shown = /^If it matches: catalyst hosts trust devbox (SHA256:\S+)$/m.exec(added.stdout)?.[1];
      expect(shown).toBe(await opensshFingerprint(suite.sshd.hostKeyLine));
      expect(added.stdout).toContain(`  ssh-ed25519 ${shown ?? '-'}\n`);

      const wrong = await hosts('trust', 'devbox', 'SHA256:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU');
      expect(wrong).toMatchObject({ code: 1, stdout: '' });
      expect(wrong.stderr).toMatch(/^catalyst: .*fingerprint.*\n$/i);

      const trusted = await hosts('trust', 'devbox', shown ?? '-');
      expect(trusted.code, trusted.stdout + trusted.stderr).toBe(0);
      for (const step of ['resolve', 'connect', 'host-key', 'auth', 'claude', 'login', 'tools', 'disk']) {
        expect(trusted.stdout).toMatch(new RegExp(`^ {2}${step} +ok +\\S`, 'm'));
      }
      expect(trusted.stdout).toMatch(/devbox is ready: runs can start there\.\n$/);

      const [again, listed] = await Promise.all([hosts('check', 'devbox'), hosts()]);
      expect(again.code, again.stdout).toBe(0);
      expect(again.stderr).toBe('Checking devbox…\n');
      expect(listed.code, listed.stderr).toBe(0);
      expect(listed.stdout).toMatch(/^NAME +DEFAULT +SOURCE +CLAUDE +STATUS$/m);
      expect(listed.stdout).toMatch(/^vm +\* +file +/m);
      expect(listed.stdout).toMatch(
        new RegExp(
          `^devbox {4,}app \\(devbox\\) +.*${suite.claudePath.replace(/[.+]/g, '\\$&')} +reachable$`,
          'm',
        ),
      );

      // Holding an idea: refused without a terminal to ask at, with how to go on; removed with --yes.
      await createIdeaOn(catalyst, 'devbox');
      const refused = await hosts('remove', 'devbox');
      expect(refused).toMatchObject({ code: 1, stdout: '' });
      expect(refused.stderr).toMatch(
        /^catalyst: devbox holds 1 idea\. .* From the command line: catalyst hosts remove devbox --yes\n$/,
      );
      expect(await hosts('remove', 'devbox', '--yes')).toMatchObject({
        code: 0,
        stdout: 'Removed devbox.\n',
      });
      const [after, unknown] = await Promise.all([hosts(), hosts('check', 'devbox')]);
      expect(after.stdout).not.toMatch(/^devbox/m);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toMatch(/^Checking devbox…\ncatalyst: .*devbox.*\n$/);
    } finally {
      await rm(ideasRoot, { recursive: true, force: true });
    }
  });

  it('at a terminal, asks to trust the key (again after a wrong fingerprint) and before removing a host with ideas', async () => {
    const { catalyst, atTerminal } = await startCatalyst();
    const ideasRoot = join(suite.sshd.users.bash.home, `catalyst-e2e-cli-hosts-tty-${String(Date.now())}`);
    try {
      const adding = atTerminal(
        'add',
        'devbox',
        '--claude-path',
        suite.claudePath,
        '--ideas-root',
        ideasRoot,
      );
      const prompt = 'Trust this key? (type the fingerprint you read on the VM, or yes if it matches)';
      await adding.printed(prompt);
      adding.type('SHA256:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU');
      await adding.printed('Do not confirm it until you know why they differ.');
      adding.type('yes');
      const added = await adding.exited;
      expect(added.code, added.stdout).toBe(0);
      const output = added.stdout.replaceAll('\r\n', '\n');
      expect(output.split(prompt)).toHaveLength(3);
      expect(output).not.toContain('If it matches');
      expect(output).toMatch(/devbox is ready: runs can start there\.\n$/);

      await createIdeaOn(catalyst, 'devbox');
      const removing = atTerminal('remove', 'devbox');
      await removing.printed('Remove devbox anyway? [y/n]');
      removing.type('y');
      const removed = await removing.exited;
      expect(removed.code, removed.stdout).toBe(0);
      expect(removed.stdout).toContain('devbox holds 1 idea.');
      expect(removed.stdout).toMatch(/Removed devbox\.\r\n$/);
    } finally {
      await rm(ideasRoot, { recursive: true, force: true });
    }
  });
});
