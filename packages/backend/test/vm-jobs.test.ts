import { afterAll } from 'vitest';
import { createTempDir, stopAllSshd } from '@catalyst/testkit';
import { createLocalHost } from '../src/host/local-host.ts';
import { scanLocalProcesses } from './host-test-kit.ts';
import { createSharedSshd, sshHostSetup } from './ssh-test-kit.ts';
import { describeVmJobs } from './vm-jobs-contract.ts';

// Sessions that live on the host, for the local host (dash as /bin/sh, and bash) and over a real sshd as the bash
// and the dash login user.

const getSshd = createSharedSshd();

afterAll(async () => {
  await stopAllSshd();
});

for (const shell of ['/bin/sh', '/bin/bash']) {
  describeVmJobs(`local ${shell}`, async () => {
    const scratch = await createTempDir('vm-sessions');
    return {
      host: createLocalHost({ shell, killGraceMs: 1000 }),
      scratchDir: scratch.path,
      scanProcesses: scanLocalProcesses,
      cleanup: () => scratch.remove(),
    };
  });
}

for (const user of ['bash', 'dash'] as const) {
  describeVmJobs(`ssh as the ${user} user`, sshHostSetup(getSshd, user));
}
