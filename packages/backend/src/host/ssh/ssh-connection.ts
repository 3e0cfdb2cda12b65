import { isIP } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Client, ClientChannel, SFTPWrapper } from 'ssh2';
import { CatalystError, isCatalystError } from '../../core/catalyst-error.ts';
import { classifyConnectError, describeError } from './ssh-errors.ts';
import { connectHop, type OpenHop } from './ssh-hop.ts';
import { proxyCommandFailure, spawnProxyCommand } from './ssh-proxy-command.ts';
import type { SshHop, SshRoute } from './ssh-route.ts';

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

/**
 * One connection along the route (ssh-route.ts): the ProxyCommand started, each jump host's handshake and a
 * forward from it to the next hop, then the target's handshake. Rejects as connectHop does, the failure of a jump
 * host naming it; whatever was opened is closed again. Closing the connection closes the jumps and the command.
 */
export async function openSshConnection(route: SshRoute): Promise<SshConnection> {
  const opened: OpenHop[] = [];
  const proxy = route.proxyCommand === undefined ? undefined : spawnProxyCommand(route.proxyCommand);
  const endAll = () => {
    for (const hop of opened) hop.client.end();
    proxy?.stop();
  };
  let sock: Duplex | undefined = proxy?.sock;
  const hops = [...route.jumps, route.target];
  for (const [index, hop] of hops.entries()) {
    try {
      const open = await connectHop(hop, sock);
      opened.push(open);
      const next = hops[index + 1];
      if (next !== undefined) sock = await forwardTo(open.client, hop, next);
    } catch (error) {
      endAll();
      const failure = hopFailure(hop, hop === route.target ? undefined : route.target, error);
      throw proxy !== undefined && index === 0 && route.proxyCommand !== undefined
        ? await proxyCommandFailure(proxy, route.proxyCommand, failure)
        : failure;
    }
  }
  const [target] = opened.slice(-1);
  if (target === undefined) throw new CatalystError('INTERNAL', 'a route without a target');
  // The target's close is the connection's loss (a jump that goes closes the target's socket too); read as it
  // settles, not a tick later: a channel that closes asks at once whether the connection is gone (ssh-raw-channel.ts).
  for (const hop of opened) void hop.lost.then(endAll);
  const { lost } = target;
  return wrapClient(target.client, route.target.label, { lost, end: endAll });
}

/** A direct-tcpip channel from a jump host to the next hop, by name: the jump resolves it, as `ssh -W` does. */
function forwardTo(client: Client, jump: SshHop, next: SshHop): Promise<Duplex> {
  return new Promise((resolve, reject) => {
    try {
      client.forwardOut('127.0.0.1', 0, next.hostName, next.port, (error, channel) => {
        if (error === undefined) resolve(channel);
        else reject(jumpRefusal(jump, next, error));
      });
    } catch (error) {
      reject(jumpRefusal(jump, next, error));
    }
  });
}

function jumpRefusal(jump: SshHop, next: SshHop, error: unknown): CatalystError {
  const reason = describeError(error).replace('(SSH) Channel open failure: ', '');
  const isProhibited = typeof error === 'object' && error !== null && 'reason' in error && error.reason === 1;
  return new CatalystError(
    'SSH_CONNECT_FAILED',
    isProhibited
      ? `the jump host ${jump.label} does not allow forwarding (AllowTcpForwarding), so it cannot reach ${next.label}`
      : `the jump host ${jump.label} could not reach ${next.hostName}:${next.port} (${reason})`,
    { cause: error, details: { host: jump.label, jumpHost: jump.label, retryable: false } },
  );
}

/** A failure at a jump host says so, with the same code: the person fixes the jump, not the target. */
function hopFailure(hop: SshHop, target: SshHop | undefined, error: unknown): CatalystError {
  const failure = isCatalystError(error) ? error : classifyConnectError(error, hop.label);
  // A jump's own refusal (jumpRefusal) names the jump already.
  if (target === undefined || 'jumpHost' in failure.details) return failure;
  return new CatalystError(
    failure.code,
    `through the jump host ${hop.label} to ${target.label}: ${failure.message}`,
    {
      cause: failure,
      details: { ...failure.details, jumpHost: hop.label },
    },
  );
}

function wrapClient(
  client: Client,
  label: string,
  route: { lost: Promise<string>; end: () => void },
): SshConnection {
  const { lost } = route;
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
      route.end();
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
