import { afterAll } from 'vitest';
import { stopAllSshd } from '@catalyst/testkit';
import { describeHostCleanup } from './host-cleanup.ts';
import { describeHostContract } from './host-contract.ts';
import { describeTerminalContract } from './host-terminal-contract.ts';
import { createSharedSshd, sshHostSetup, type TestUser } from './ssh-test-kit.ts';

// The Host contract and the cleanup proofs for the SSH adapter against a real OpenSSH sshd on 127.0.0.1, once per
// kind of login user: bash (its ~/.bashrc prints noise), dash (no rc file, no `$'…'`), and root (sshd never
// delivers `signal` requests to root sessions, ssh-field-notes.md §1: nothing here may depend on them).

const getSshd = createSharedSshd();

afterAll(async () => {
  await stopAllSshd();
});

for (const user of ['bash', 'dash', 'root'] satisfies TestUser[]) {
  describeHostContract(`ssh as the ${user} user`, sshHostSetup(getSshd, user), { burst: user !== 'root' });
}
describeTerminalContract('ssh as the bash user', sshHostSetup(getSshd, 'bash'));
// The cleanup proofs once per way a run is stopped differently: as a login user (bash) and as root (no signals
// delivered). The wrapper's stop under dash is proven by the local host's /bin/sh (dash on Debian).
for (const user of ['bash', 'root'] satisfies TestUser[]) {
  describeHostCleanup(`ssh as the ${user} user`, sshHostSetup(getSshd, user));
}
