import { readFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { Client, type ClientChannel, type ConnectConfig, type SFTPWrapper } from 'ssh2';
import { CatalystError } from '../../core/catalyst-error.ts';
import { createHostKeyCheck, hostKeyMismatchError, type HostKeyCheck } from './host-key-pin.ts';
import type { SshHostSettings } from './ssh-config.ts';
import { classifyConnectError, describeError } from './ssh-errors.ts';

/**
 * One authenticated ssh2 Client. Opening a channel never throws: it says whether the channel opened, the server
 * refused it (the connection is full, ssh-field-notes.md §4), or the connection is gone.
 */

export type ChannelOpenResult<T> =
  | { kind: 'opened'; channel: T }
  | { kind: 'refused'; message: string }
  | { kind: 'lost'; message: string }
  | { kind: 'failed'; error: CatalystError };

export interface SshConnection {
  readonly id: number;
  readonly label: string;
  /** No pty, ever: a pty merges stderr into stdout and makes claude think it is interactive (§2). */
  exec(command: string): Promise<ChannelOpenResult<ClientChannel>>;
  sftp(): Promise<ChannelOpenResult<SFTPWrapper>>;
  /**
   * A direct-tcpip channel to `<address>:<port>` on the server (ssh2 forwardOut), `address` an IP address (Host.openTcp):
   * not a session, no MaxSessions slot.
   */
  forwardOut(address: string, port: number): Promise<ChannelOpenResult<ClientChannel>>;
  isOpen(): boolean;
  /** Settles once the connection is gone, with why (e.g. `Keepalive timeout`). */
  readonly lost: Promise<string>;
  end(): void;
}

let nextConnectionId = 1;

/** One handshake; rejects with SSH_CONNECT_FAILED (details.retryable), SSH_AUTH_FAILED or SSH_HOST_KEY_MISMATCH. */
export async function openSshConnection(settings: SshHostSettings): Promise<SshConnection> {
  const check = createHostKeyCheck(settings.pin);
  const config = { ...(await credentialsOf(settings)), ...connectConfigOf(settings, check) };
  const client = new Client();
  const { ready, lost } = watchClient(client, settings, check);
  try {
    client.connect(config);
  } catch (error) {
    // ssh2 parses the private key inside connect() and throws on a bad one.
    ready.catch(() => undefined);
    client.end();
    throw new CatalystError(
      'SSH_AUTH_FAILED',
      `cannot use the private key for ${settings.label}: ${describeError(error)}`,
      {
        cause: error,
        details: { host: settings.label },
      },
    );
  }
  // Without TCP_NODELAY each exec round trip waits ~40 ms on Nagle plus delayed ACK (§8); the socket exists now.
  client.setNoDelay(true);
  await ready;
  return wrapClient(client, settings.label, lost);
}

function connectConfigOf(settings: SshHostSettings, check: HostKeyCheck): ConnectConfig {
  return {
    host: settings.address,
    port: settings.port,
    username: settings.user,
    readyTimeout: settings.timing.readyTimeoutMs,
    keepaliveInterval: settings.timing.keepaliveIntervalMs,
    keepaliveCountMax: settings.timing.keepaliveCountMax,
    hostVerifier: check.verify,
    algorithms: { serverHostKey: check.algorithms },
  };
}

async function credentialsOf(settings: SshHostSettings): Promise<ConnectConfig> {
  if (settings.auth.kind === 'agent') return { agent: settings.auth.socket };
  try {
    return { privateKey: await readFile(settings.auth.privateKeyPath) };
  } catch (error) {
    throw new CatalystError(
      'SSH_AUTH_FAILED',
      `cannot read the private key ${settings.auth.privateKeyPath} for ${settings.label}: ${describeError(error)}`,
      { cause: error, details: { host: settings.label, privateKeyPath: settings.auth.privateKeyPath } },
    );
  }
}

/**
 * A permanent 'error' listener: after a failed connect ssh2 can emit a second 'error' (e.g. `Connection lost
 * before handshake` after a ready timeout), which would crash a process that used once('error') (§5, §10.6).
 */
function watchClient(
  client: Client,
  settings: SshHostSettings,
  check: HostKeyCheck,
): { ready: Promise<void>; lost: Promise<string> } {
  let lastError: unknown;
  let isReady = false;
  let failConnect: (error: CatalystError) => void = () => undefined;
  const ready = new Promise<void>((resolve, reject) => {
    client.once('ready', () => {
      isReady = true;
      resolve();
    });
    failConnect = reject;
  });
  const lost = new Promise<string>((resolve) => {
    client.on('close', () => {
      if (!isReady)
        failConnect(connectFailure(settings, check, lastError ?? new Error('closed before ready')));
      resolve(lastError === undefined ? 'the SSH connection closed' : describeError(lastError));
    });
  });
  client.on('error', (error: unknown) => {
    lastError ??= error;
    if (!isReady) {
      failConnect(connectFailure(settings, check, error));
      client.end();
    }
  });
  return { ready, lost };
}

function connectFailure(settings: SshHostSettings, check: HostKeyCheck, error: unknown): CatalystError {
  const presented = check.refusedFingerprint();
  if (presented !== undefined) {
    return hostKeyMismatchError({ label: settings.label, pin: settings.pin, presented, cause: error });
  }
  return classifyConnectError(error, settings.label);
}

function wrapClient(client: Client, label: string, lost: Promise<string>): SshConnection {
  let isOpen = true;
  void lost.then(() => (isOpen = false));
  return {
    id: nextConnectionId++,
    label,
    lost,
    isOpen: () => isOpen,
    exec: (command) => openChannel<ClientChannel>(label, (callback) => client.exec(command, callback)),
    sftp: () => openChannel<SFTPWrapper>(label, (callback) => client.sftp(callback)),
    forwardOut: (address, port) => openForward(client, address, port),
    end: () => {
      client.end();
    },
  };
}

type OpenCallback<T> = (error: Error | undefined, channel: T) => void;

/**
 * A refused direct-tcpip channel is about the port, never the connection's MaxSessions: sshd answers
 * `Connection refused` (reason 2) when nothing listens, `administratively prohibited` (reason 1) under
 * `AllowTcpForwarding no`.
 */
function openForward(
  client: Client,
  address: string,
  port: number,
): Promise<ChannelOpenResult<ClientChannel>> {
  // A name would be resolved by sshd, which may pick another listener than the app's (issue 25, finding 6).
  if (isIP(address) === 0) {
    const error = new CatalystError('INVALID_ARGUMENT', `${JSON.stringify(address)} is not an IP address.`);
    return Promise.resolve({ kind: 'failed', error });
  }
  return new Promise((resolve) => {
    try {
      client.forwardOut('127.0.0.1', 0, address, port, (error, channel) => {
        if (error === undefined) {
          resolve({ kind: 'opened', channel });
          return;
        }
        if (error.message === 'No response from server' || error.message === 'Not connected') {
          resolve({ kind: 'lost', message: error.message });
          return;
        }
        const isProhibited = (error as Error & { reason?: number }).reason === 1;
        const message = isProhibited
          ? `The VM's sshd does not allow port forwarding (AllowTcpForwarding), so Catalyst cannot reach port ${port} there.`
          : `Nothing answers on port ${port} of the host (${error.message.replace('(SSH) Channel open failure: ', '')}).`;
        resolve({
          kind: 'failed',
          error: new CatalystError('PORT_UNREACHABLE', message, { details: { port } }),
        });
      });
    } catch (error) {
      resolve({ kind: 'lost', message: describeError(error) });
    }
  });
}

function openChannel<T>(
  label: string,
  open: (callback: OpenCallback<T>) => void,
): Promise<ChannelOpenResult<T>> {
  return new Promise((resolve) => {
    try {
      open((error, channel) => {
        resolve(error === undefined ? { kind: 'opened', channel } : openFailure(label, error));
      });
    } catch (error) {
      // `Not connected`: the socket closed between the pool's check and this call.
      resolve({ kind: 'lost', message: describeError(error) });
    }
  });
}

function openFailure<T>(label: string, error: Error): ChannelOpenResult<T> {
  // MaxSessions reached: `(SSH) Channel open failure: open failed`, reason 2 (§4).
  if (error.message.includes('Channel open failure')) return { kind: 'refused', message: error.message };
  // Every pending request fails with this when the socket closes.
  if (error.message === 'No response from server' || error.message === 'Not connected') {
    return { kind: 'lost', message: error.message };
  }
  return {
    kind: 'failed',
    error: new CatalystError('RUN_START_FAILED', `${label}: ${error.message}`, {
      cause: error,
      details: { host: label },
    }),
  };
}
