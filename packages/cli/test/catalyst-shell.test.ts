import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { TERMINAL_WS_PATH } from '@catalyst/protocol';
import { startTcpProxy, waitUntil, type TcpProxy } from '@catalyst/testkit';
import { describe, expect, it, onTestFinished } from 'vitest';
import { WebSocket } from 'ws';
import { useServiceFixture } from '../../backend/test/service-harness.ts';
import { startCli, useCliFiles } from './cli-process.ts';

// `catalyst shell <idea>` (issue 31): the idea's terminal in the person's own, the real bin at a terminal (util-linux
// script), against a whole Catalyst whose host is the test kit's sshd.

const fixture = useServiceFixture();
const files = useCliFiles('catalyst-shell', () => fixture.service.catalyst.token);

describe('catalyst shell', () => {
  it('opens a shell in the project folder at a terminal, runs what is typed, and ends with exit', async () => {
    const idea = await fixture.service.createIdea('Shell from the command line');
    const cli = startCli(
      ['--url', fixture.service.catalyst.url, '--token-file', files.tokenFile, 'shell', idea.id],
      {
        atTerminal: true,
      },
    );
    cli.type('pwd');
    await cli.printed(fixture.service.projectDir(idea.id));
    cli.type('echo "sum-$((6*7))"');
    await cli.printed('sum-42');
    expect(fixture.service.catalyst.services.terminals.idsOf(idea.id)).toHaveLength(1);
    cli.type('exit');
    const exit = await cli.exited;
    expect(exit.code).toBe(0);
    expect(fixture.service.catalyst.services.terminals.idsOf(idea.id)).toEqual([]);
  });

  it('re-attaches to the same shell after a dropped connection, saying so on stderr', async () => {
    const idea = await fixture.service.createIdea('Shell through a flaky network');
    const proxy = await startProxy();
    const cli = startShellAt(proxy.url, idea.id);
    cli.type('KEPT="kept-$((40+2))"; echo "pid-$$"');
    const [, pid] = await cli.printedMatch(/pid-(\d+)/, 'stdout');

    expect(proxy.dropConnections(), 'the command had a connection to drop').toBeGreaterThan(0);
    await cli.printed('catalyst: lost the connection to Catalyst', 'stderr');
    await cli.printed('catalyst: reconnected; the same shell goes on.', 'stderr');
    cli.type('echo "again-$KEPT-$$"');
    await cli.printed(`again-kept-42-${pid}`, 'stdout');
    expect(fixture.service.catalyst.services.terminals.idsOf(idea.id)).toHaveLength(1);

    cli.type('exit');
    const exit = await cli.exited;
    expect(exit.code).toBe(0);
    // The notices are on stderr only, one line each; the replay did not print the shell's output twice.
    expect(exit.stdout).not.toContain('catalyst:');
    expect(
      exit.stderr
        .trim()
        .split(/\r?\n/)
        .filter((line) => line !== ''),
    ).toEqual([
      'catalyst: lost the connection to Catalyst; reconnecting to the same shell…',
      'catalyst: reconnected; the same shell goes on.',
    ]);
    expect(exit.stdout.split(`pid-${pid}`)).toHaveLength(2);
  });

  it('keeps what is typed while the connection is down and sends it once back', async () => {
    const { proxy, cli } = await startShellThenDrop('Typing into a dropped shell');
    cli.type('echo "typed-$((3*3))-while-away"');
    proxy.release();
    await cli.printed('typed-9-while-away', 'stdout');
    cli.type('exit');
    expect((await cli.exited).code).toBe(0);
  });

  it('says so and exits 1 when the shell ended while the connection was down', async () => {
    const { idea, proxy, cli } = await startShellThenDrop('Shell gone meanwhile');
    await fixture.service.catalyst.services.terminals.closeAllOf(idea.id);
    proxy.release();
    const exit = await cli.exited;
    expect(exit.code).toBe(1);
    expect(exit.stderr).toContain('The shell ended while the connection to Catalyst was lost.');
  });

  it('lets go, says so and exits 1 when the same shell is attached elsewhere', async () => {
    const idea = await fixture.service.createIdea('Shell taken over');
    const cli = startShellAt(fixture.service.catalyst.url, idea.id);
    cli.type('echo "ready-$((1+1))"');
    await cli.printed('ready-2', 'stdout');
    const [terminalId] = fixture.service.catalyst.services.terminals.idsOf(idea.id);
    const other = new WebSocket(`${fixture.service.catalyst.url.replace(/^http/, 'ws')}${TERMINAL_WS_PATH}`, {
      headers: { authorization: `Bearer ${fixture.service.catalyst.token}` },
    });
    onTestFinished(() => {
      other.close();
    });
    await new Promise((resolve) => other.once('open', resolve));
    other.send(JSON.stringify({ type: 'attach', ideaId: idea.id, terminalId, cols: 80, rows: 24 }));

    const exit = await cli.exited;
    expect(exit.code).toBe(1);
    expect(exit.stderr).toContain('this shell was opened elsewhere');
    // It did not take the shell back: the other socket still has it, and closes it.
    const ended = new Promise((resolve) => other.once('close', resolve));
    other.send(JSON.stringify({ type: 'close' }));
    await ended;
    expect(fixture.service.catalyst.services.terminals.idsOf(idea.id)).toEqual([]);
  });
});

describe('catalyst shell with piped input', () => {
  it('stops rather than go on with a gap when the connection drops while it sends', async () => {
    const idea = await fixture.service.createIdea('Piped shell through a flaky network');
    const proxy = await startProxy();
    // A pipe the test writes into: read by the command as its stdin, which is then no terminal.
    const fifo = join(files.dir, 'stdin');
    execFileSync('mkfifo', [fifo]);
    const writer = openSync(fifo, constants.O_RDWR);
    onTestFinished(() => {
      closeSync(writer);
    });
    const cli = startCli(['--url', proxy.url, '--token-file', files.tokenFile, 'shell', idea.id], {
      stdinFile: fifo,
    });
    writeSync(writer, 'echo "piped-$((2+3))"\n');
    await cli.printed('piped-5', 'stdout');

    expect(proxy.dropConnections(), 'the command had a connection to drop').toBeGreaterThan(0);
    const exit = await cli.exited;
    expect(exit.code).toBe(3);
    expect(exit.stderr).toContain('some of it may not have reached the shell');
    expect(exit.stderr).not.toContain('reconnected');
  });
});

describe('catalyst shell into a slow reader', () => {
  it('holds the shell’s output back on the server while its stdout is not read, and goes on once it is', async () => {
    const idea = await fixture.service.createIdea('Shell into a pipe nobody reads');
    const { terminals } = fixture.service.catalyst.services;
    const fifo = join(files.dir, 'slow-stdin');
    execFileSync('mkfifo', [fifo]);
    const writer = openSync(fifo, constants.O_RDWR);
    onTestFinished(() => {
      closeSync(writer);
    });
    const cli = startCli(
      ['--url', fixture.service.catalyst.url, '--token-file', files.tokenFile, 'shell', idea.id],
      {
        stdinFile: fifo,
      },
    );
    writeSync(writer, 'echo "begin-$((3+4))"\n');
    await cli.printed('begin-7', 'stdout');
    const [terminalId] = terminals.idsOf(idea.id);
    if (terminalId === undefined) throw new Error('the command opened no terminal');
    const flow = () => terminals.flowOf(terminalId);

    // `catalyst shell x | reader` whose reader stops reading: the pipe fills, and the server stops reading the
    // shell's output (the command does not keep taking it into its own memory).
    const stdout = cli.child.stdout;
    if (stdout === null) throw new Error('no stdout pipe');
    stdout.pause();
    writeSync(writer, 'yes catalyst-flow\n');
    await waitUntil(() => flow()?.isHoldingBack === true, {
      timeoutMs: 20_000,
      what: 'the server to hold the shell’s output back',
    });
    const heldAt = flow()?.bytesRead ?? 0;

    // Read again: the output flows again, through the same socket and shell.
    stdout.resume();
    await waitUntil(() => (flow()?.bytesRead ?? 0) > heldAt + 4 * 1024 * 1024, {
      timeoutMs: 20_000,
      what: 'the shell’s output to flow again',
    });
    writeSync(writer, '\u0003');
    writeSync(writer, 'exit 0\n');
    const exit = await cli.exited;
    expect(exit.code).toBe(0);
    expect(exit.stderr).toBe('');
    expect(terminals.idsOf(idea.id)).toEqual([]);
  });
});

async function startProxy(): Promise<TcpProxy> {
  const proxy = await startTcpProxy({ host: '127.0.0.1', port: fixture.service.catalyst.port });
  onTestFinished(() => proxy.close());
  return proxy;
}

/** A shell through a proxy that is cut once the shell answers, and holds new connections until released. */
async function startShellThenDrop(title: string) {
  const idea = await fixture.service.createIdea(title);
  const proxy = await startProxy();
  const cli = startShellAt(proxy.url, idea.id);
  cli.type('echo "ready-$((1+1))"');
  await cli.printed('ready-2', 'stdout');
  proxy.hold();
  proxy.dropConnections();
  await cli.printed('catalyst: lost the connection to Catalyst', 'stderr');
  return { idea, proxy, cli };
}

function startShellAt(url: string, ideaId: string) {
  return startCli(['--url', url, '--token-file', files.tokenFile, 'shell', ideaId], {
    atTerminal: true,
    hasStderrApart: true,
  });
}
