import { TERMINAL_WS_PATH } from '@catalyst/protocol';
import { waitUntil } from '@catalyst/testkit';
import { describe, expect, it } from 'vitest';
import { spawnCatalyst } from './catalyst-process-kit.ts';
import { useServiceFixture } from './service-harness.ts';
import { openTerminalClient, runInTerminal } from './terminal-client.ts';

// A SIGKILLed Catalyst runs no shutdown: the pty's hangup ends its terminals' shells, but a job a shell shielded from
// the hangup (`nohup`) goes on. The terminal's run dir (vm/terminal-shell.sh) is what the next start-up sweep finds.

const fixture = useServiceFixture();

describe('a terminal of a killed Catalyst', () => {
  it('leaves nothing running once the next Catalyst has swept the host', { timeout: 60_000 }, async () => {
    const idea = await fixture.service.createIdea('Terminal of a killed backend');
    const { configDir, ideasRoot } = fixture.service;
    await fixture.service.stop();
    const killed = await spawnCatalyst({
      sshd: fixture.sshd,
      user: fixture.sshd.users.bash,
      claudePath: fixture.claudePath,
      reuse: { configDir, ideasRoot },
    });
    try {
      const client = await openTerminalClient(`${killed.url.replace('http', 'ws')}${TERMINAL_WS_PATH}`, {
        headers: { authorization: `Bearer ${killed.token}` },
      });
      client.send({ type: 'open', ideaId: idea.id, cols: 80, rows: 24 });
      await client.waitForFrame('ready');
      await runInTerminal(client, 'nohup sleep 1003 >/dev/null 2>&1 & true', 'done-nohup');
      const sleeps = async () =>
        (await fixture.runProcesses(idea.id)).filter((found) => found.cmdline === 'sleep 1003');
      await waitUntil(async () => (await sleeps()).length === 1, { timeoutMs: 10_000, what: 'the sleep' });
      await killed.kill();
      await client.closed;
    } finally {
      await killed.kill();
    }
    // The shell went with its pty; the sleep did not.
    await waitUntil(
      async () => (await fixture.runProcesses(idea.id)).every((found) => found.cmdline === 'sleep 1003'),
      { timeoutMs: 10_000, what: 'the shell to end with its pty' },
    );
    expect((await fixture.runProcesses(idea.id)).map((found) => found.cmdline)).toEqual(['sleep 1003']);

    const restarted = await fixture.restartService();
    await restarted.catalyst.swept;
    expect(await fixture.runProcesses(idea.id)).toEqual([]);
  });
});
