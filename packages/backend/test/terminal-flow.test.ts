import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { waitUntil } from '@catalyst/testkit';
import { describe, expect, it } from 'vitest';
import { scanLocalProcesses } from './host-test-kit.ts';
import { useServiceFixture } from './service-harness.ts';
import { connectTerminal, openTerminal, runInTerminal, type TerminalClient } from './terminal-client.ts';

// A terminal's output is read only as fast as someone takes it (terminals/terminal-flow.ts), over SSH to the test
// kit's sshd.

const fixture = useServiceFixture();
const MIB = 1024 * 1024;

/** The terminal's `yes`, found by the terminal's run tag: its CPU time (utime + stime, in ticks) and state. */
async function yesOf(runTag: string): Promise<{ ticks: number; state: string }> {
  const yes = (await scanLocalProcesses(runTag)).find((found) => found.cmdline.startsWith('yes'));
  if (yes === undefined) throw new Error('the terminal’s yes is not running');
  const stat = await readFile(`/proc/${String(yes.pid)}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { ticks: Number(fields[11]) + Number(fields[12]), state: fields[0] ?? '?' };
}

/**
 * Ctrl-C, then a marker once the shell is back. A plain pattern: the output since `from` holds megabytes of `yes`,
 * which a pattern with a leading `[^]*` would scan again from every position.
 */
async function stopYes(client: TerminalClient, marker: string): Promise<void> {
  client.type('\x03');
  const from = client.output().length;
  client.type(`echo "${marker}-$((40+2))"\r`);
  // What `yes` printed before the ^C still drains first, MiBs of it through SSH, the pty and the socket: on a busy
  // machine that took longer than the client's usual 15 s (CI).
  await client.waitForOutput(new RegExp(`${marker}-42`), from, 45_000);
}

describe('the terminal’s output flow', () => {
  it('stops reading a detached shell once its scrollback is full, and goes on when attached again', async () => {
    const { terminals } = fixture.service.catalyst.services;
    const idea = await fixture.service.createIdea('Terminal flow detached');
    const { client, ready } = await openTerminal(fixture.service, idea.id);
    const flow = () => terminals.flowOf(ready.terminalId);
    client.type('yes detached\r');
    await waitUntil(() => (flow()?.bytesRead ?? 0) > MIB, { timeoutMs: 10_000, what: 'yes to print' });
    client.socket.terminate();
    await client.closed;

    await waitUntil(() => flow()?.isHoldingBack === true, { timeoutMs: 10_000, what: 'the reader to stop' });
    const [tag = ''] = terminals.runTagsOf(idea.id);
    const held = flow()?.bytesRead ?? 0;
    // What the host sent before the reader stopped fills the channel's buffers here; then `yes` blocks on the VM.
    let last = -1;
    await waitUntil(
      async () => {
        const { ticks, state } = await yesOf(tag);
        const isStill = ticks === last && state === 'S';
        last = ticks;
        return isStill;
      },
      { timeoutMs: 10_000, intervalMs: 200, what: 'yes to block' },
    );
    // Nothing to await: that nothing happens is the point. Half a second is 50 ticks of a `yes` that could write.
    await delay(500);
    expect(flow()).toMatchObject({ bytesRead: held, isHoldingBack: true });
    expect((await yesOf(tag)).ticks).toBeLessThanOrEqual(last + 1);

    const again = await connectTerminal(fixture.service);
    again.send({ type: 'attach', ideaId: idea.id, terminalId: ready.terminalId, cols: 80, rows: 24 });
    await again.waitForFrame('ready');
    await waitUntil(() => (flow()?.bytesRead ?? 0) > held + 4 * MIB, {
      timeoutMs: 10_000,
      what: 'the output to go on',
    });
    await stopYes(again, 'detached');
    again.send({ type: 'close' });
    await again.waitForFrame('ended');
  });

  it('stops reading while its client is behind, and goes on once the client has caught up', async () => {
    const { terminals } = fixture.service.catalyst.services;
    const idea = await fixture.service.createIdea('Terminal flow slow');
    const { client, ready } = await openTerminal(fixture.service, idea.id);
    const flow = () => terminals.flowOf(ready.terminalId);
    client.type('yes behind\r');
    await waitUntil(() => (flow()?.bytesRead ?? 0) > MIB, { timeoutMs: 10_000, what: 'yes to print' });
    // The client stops reading its socket: the server's send buffer grows past the high-water mark.
    client.socket.pause();
    await waitUntil(() => flow()?.isHoldingBack === true, { timeoutMs: 10_000, what: 'the reader to stop' });
    const held = flow()?.bytesRead ?? 0;
    client.socket.resume();
    await waitUntil(() => (flow()?.bytesRead ?? 0) > held + 4 * MIB, {
      timeoutMs: 10_000,
      what: 'the output to go on',
    });
    // Held back, never let go: the same socket is still this terminal's.
    expect(client.socket.readyState).toBe(client.socket.OPEN);
    await stopYes(client, 'behind');
    client.send({ type: 'close' });
    await client.waitForFrame('ended');
  });
});

describe('a client that holds the output back (its flow frame)', () => {
  it('still gets the output while its input waits for the pty, so its resume behind that input is read', async () => {
    const { terminals } = fixture.service.catalyst.services;
    const idea = await fixture.service.createIdea('Terminal flow held both ways');
    const { client, ready } = await openTerminal(fixture.service, idea.id);
    // `head` prints what it reads: with the output held it stops reading, the pty's input fills, and the server
    // stops reading the socket, where the client's resume then waits behind its input. 24 MiB: the SSH channel and
    // sshd buffer several MiB each way (6 MiB went through even when the server ignored the input's wait).
    const size = 24 * MIB;
    const from = client.output().length;
    client.type(
      `stty raw -echo; echo "ready-$((40+2))"; head -c ${String(size)}; stty sane; echo; echo "done-$((40+3))"\r`,
    );
    await client.waitForOutput(/ready-42/, from);
    client.send({ type: 'flow', paused: true });
    const typed = Buffer.alloc(size, 'z');
    for (let at = 0; at < typed.length; at += 64 * 1024)
      client.socket.send(typed.subarray(at, at + 64 * 1024));
    client.send({ type: 'flow', paused: false });
    // Tens of MiB through SSH and the pty: more than the client's usual wait on a busy machine.
    await waitUntil(() => client.output().includes('done-43', from), {
      timeoutMs: 45_000,
      what: 'the shell to print all it read, and go on',
    });
    expect(terminals.flowOf(ready.terminalId)?.inputWaits).toBeGreaterThan(0);
    client.send({ type: 'close' });
    await client.waitForFrame('ended');
  });
});

describe('the terminal’s input flow', () => {
  it('takes a paste of several MiB whole and in order, waiting while the way to the pty is full', async () => {
    const { terminals } = fixture.service.catalyst.services;
    const idea = await fixture.service.createIdea('Terminal flow input');
    const { client, ready } = await openTerminal(fixture.service, idea.id);
    // Numbered lines: a place lost or a part twice shows in the sum.
    const lines: string[] = [];
    for (let index = 0; index < 120_000; index++)
      lines.push(`${String(index).padStart(8, '0')} ${'x'.repeat(60)}\n`);
    const pasted = Buffer.from(lines.join(''));
    expect(pasted.length).toBeGreaterThan(8 * MIB);
    // Raw, without echo: the pty passes the bytes as they are (its line discipline's canonical mode was seen to stall
    // a 4 MiB paste of short lines for good, with no pause of ours involved). `head` reads only once the server has
    // waited for the way to the pty: a fast reader could otherwise take it all with no wait (seen on a busy run).
    const from = client.output().length;
    client.type(
      `stty raw -echo; echo "ready-$((40+2))"; while [ ! -e go ]; do sleep 0.1; done; ` +
        `head -c ${String(pasted.length)} > pasted.txt; stty sane\r`,
    );
    await client.waitForOutput(/ready-42/, from);
    for (let at = 0; at < pasted.length; at += 64 * 1024)
      client.socket.send(pasted.subarray(at, at + 64 * 1024));
    await waitUntil(() => (terminals.flowOf(ready.terminalId)?.inputWaits ?? 0) > 0, {
      timeoutMs: 15_000,
      what: 'the server to wait for the way to the pty',
    });
    await writeFile(join(fixture.service.projectDir(idea.id), 'go'), '');
    const sum = await runInTerminal(client, 'sha256sum pasted.txt', 'done-sum');
    expect(sum).toContain(createHash('sha256').update(pasted).digest('hex'));
    client.send({ type: 'close' });
    await client.waitForFrame('ended');
  });

  it('takes a paste into a line-mode program with echo off (a password prompt), and keeps the connection', async () => {
    const idea = await fixture.service.createIdea('Terminal paste without echo');
    const { client } = await openTerminal(fixture.service, idea.id);
    // sshd answers each write to a pty in this mode with an SSH_MSG_IGNORE as long as the write, to hide what was
    // typed: a paste makes it longer than the 35000 bytes ssh2 took, which dropped the whole SSH connection.
    // The paste comes while the program does not read yet (a second's sleep): sshd holds what the pty cannot take,
    // then writes it in large pieces once the program reads. 200 KB: more would stall in the pty's line mode for
    // long on a busy machine (seen with 560 KB).
    const lines: string[] = [];
    for (let index = 0; index < 3_000; index++)
      lines.push(`${String(index).padStart(8, '0')} ${'y'.repeat(60)}\n`);
    const pasted = Buffer.from(lines.join(''));
    const from = client.output().length;
    client.type(
      `stty -echo; echo "ready-$((40+2))"; sleep 1; head -c ${String(pasted.length)} > pasted.txt; stty echo\r`,
    );
    await client.waitForOutput(/ready-42/, from);
    for (let at = 0; at < pasted.length; at += 64 * 1024)
      client.socket.send(pasted.subarray(at, at + 64 * 1024));
    const sum = await runInTerminal(client, 'sha256sum pasted.txt', 'done-sum');
    expect(sum).toContain(createHash('sha256').update(pasted).digest('hex'));
    client.send({ type: 'close' });
    expect((await client.waitForFrame('ended')).reason).toBe('closed');
  });
});
