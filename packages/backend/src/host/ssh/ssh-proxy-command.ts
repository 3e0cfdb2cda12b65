import { spawn } from 'node:child_process';
import { Duplex } from 'node:stream';
import { CatalystError } from '../../core/catalyst-error.ts';
import { settlesWithin } from '../../core/settles-within.ts';

/**
 * A `ProxyCommand` from ssh_config, run on Catalyst's machine as ssh runs it (sshconnect.c
 * `ssh_proxy_connect`): `$SHELL -c "exec <command>"` with its stdin and stdout as the connection. Its stderr is
 * kept (the last few KiB) for the sentence when the connection fails; it is ended with SIGHUP when the connection
 * closes, as ssh does, and with SIGKILL if it lingers.
 */

const STDERR_TAIL_BYTES = 4096;
const KILL_AFTER_MS = 2000;

export interface ProxyCommandStream {
  /** The connection's socket, for ssh2's `sock`. */
  readonly sock: Duplex;
  /** What the command wrote on stderr so far (its tail), trimmed. */
  stderrTail(): string;
  /** Set once the command has exited: how, in words. */
  exitDescription(): string | undefined;
  /** Resolves once the command has exited and its stderr is read, or after `withinMs`, whichever comes first. */
  settled(withinMs: number): Promise<void>;
  stop(): void;
}

export function spawnProxyCommand(command: string): ProxyCommandStream {
  const shell = process.env['SHELL'] ?? '/bin/sh';
  const child = spawn(shell, ['-c', `exec ${command}`], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = Buffer.alloc(0);
  let exit: string | undefined;
  let spawnError: string | undefined;
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = Buffer.concat([stderr, chunk]);
    if (stderr.length > STDERR_TAIL_BYTES) stderr = stderr.subarray(stderr.length - STDERR_TAIL_BYTES);
  });
  child.on('error', (error) => {
    spawnError = error.message;
  });
  child.on('exit', (code, signal) => {
    exit = signal === null ? `exited with code ${String(code)}` : `was ended by ${signal}`;
  });
  const closed = new Promise<void>((resolve) => {
    child.once('close', () => {
      resolve();
    });
  });
  const sock = Duplex.from({ readable: child.stdout, writable: child.stdin });
  // A write after the command exited must not become an uncaught EPIPE: the connection's close reports it.
  sock.on('error', () => undefined);
  // Its output read to the end and the process gone: the connection is over. Said at once, or a command that exits
  // before the handshake could leave ssh2 waiting for its handshake timeout (seen once in twenty runs).
  void closed.then(() => {
    if (!sock.destroyed) sock.destroy();
  });
  child.stdin.on('error', () => undefined);
  return {
    sock,
    stderrTail: () => stderr.toString('utf8').trim(),
    exitDescription: () => spawnError ?? exit,
    settled: async (withinMs) => {
      await settlesWithin(closed, withinMs);
    },
    stop: () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGHUP');
      setTimeout(() => child.kill('SIGKILL'), KILL_AFTER_MS).unref();
    },
  };
}

/**
 * The sentence for a connection through a ProxyCommand that failed: what the command said and how it ended. The
 * connection sees the command's stdout end before the process's exit is reported, so that is awaited (briefly).
 */
export async function proxyCommandFailure(
  proxy: ProxyCommandStream,
  command: string,
  failure: CatalystError,
): Promise<CatalystError> {
  await proxy.settled(1000);
  const exit = proxy.exitDescription();
  const stderr = proxy.stderrTail();
  if (exit === undefined && stderr === '') return failure;
  const said = stderr === '' ? '' : `: ${stderr.split('\n').slice(-3).join(' / ')}`;
  return new CatalystError(
    'SSH_CONNECT_FAILED',
    `the ProxyCommand \`${command.slice(0, 200)}\` ${exit ?? 'is running'}${said} (${failure.message})`,
    {
      cause: failure,
      details: { ...failure.details, proxyCommand: command.slice(0, 200), retryable: false },
    },
  );
}
