import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { afterAll } from 'vitest';
import { installSharedClaude, stopAllSshd } from '@catalyst/testkit';
import { createSshHost } from '../src/host/ssh/ssh-host.ts';
import { scanLocalProcesses } from './host-test-kit.ts';
import { describeRealClaude } from './real-claude-suite.ts';
import { createSharedSshd, sshHostConfig } from './ssh-test-kit.ts';

// The real claude CLI on the "VM" over SSH, as the bash user (whose ~/.bashrc prints noise): a copy of the test
// kit's CLI in a place every user can reach (the clone may sit in a directory only root can enter), the scripted
// model on 127.0.0.1, HOME a directory that user owns.

const getSshd = createSharedSshd();
afterAll(async () => {
  await stopAllSshd();
});

describeRealClaude('SSH', async () => {
  const sshd = await getSshd();
  const host = createSshHost(sshHostConfig(sshd, 'bash'));
  const dir = `${sshd.users.bash.home}/catalyst-claude-${randomBytes(4).toString('hex')}`;
  // Made over SFTP, so the bash user owns them.
  await host.mkdirp(`${dir}/home`);
  await host.mkdirp(`${dir}/work`);
  return {
    host,
    claudePath: await installSharedClaude(),
    home: `${dir}/home`,
    work: `${dir}/work`,
    // Our PATH means nothing on the VM; the bash user's would be sshd's default.
    path: '/usr/bin:/bin',
    scratchDir: dir,
    scanProcesses: scanLocalProcesses,
    cleanup: async () => {
      await host.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});
