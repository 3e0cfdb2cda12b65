import { isIP } from 'node:net';
import type { Client, ClientChannel, SFTPWrapper } from 'ssh2';
import { CatalystError } from '../../core/catalyst-error.ts';
import { describeError } from './ssh-errors.ts';
import { connectHop, type OpenHop } from './ssh-hop.ts';
import { createJumpChains, hopFailure, type JumpChains } from './ssh-jump-chains.ts';
import { answerUntilFirstChannel, transportOf } from './ssh-prompt-ack.ts';
import type { SshRoute } from './ssh-route.ts';

/**
 * One authenticated ssh2 Client. Opening a channel never throws: it says whether the channel opened, the server
 * refused it (the connection is full, ssh-field-notes.md §4), or the connection is gone.
 */

export type ChannelOpenResult<T> =
  | { kind: 'opened'; channel: T }
  | { kind: 'refused'; message: string }
  | { kind: 'lost'; message: string }
  | { kind: 'failed'; error: CatalystError };

export interface PtyWindow {
  term: string;
  cols: number;
  rows: number;
}

export interface SshConnection {
  readonly id: number;
  readonly label: string;
  /** How the target let this connection in (`the key file ~/.ssh/id_ed25519`, `the ed25519 key … in the ssh-agent`). */
  readonly authenticatedWith: string | undefined;
  /** No pty, ever: a pty merges stderr into stdout and makes claude think it is interactive (§2). */
  exec(command: string): Promise<ChannelOpenResult<ClientChannel>>;
  /** As exec, on a pty of `window`'s size (a terminal, ssh-terminal.ts): stderr merges into stdout there. */
  execPty(command: string, window: PtyWindow): Promise<ChannelOpenResult<ClientChannel>>;
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
 * One connection along the route (ssh-route.ts): the way in (ssh-jump-chains.ts: the ProxyCommand, the jump hosts,
 * shared by the host's connections when `chains` is given), then the target's handshake. Rejects as connectHop does,
 * the failure of a jump host naming it; whatever was opened for this connection alone is closed again.
 */
export async function openSshConnection(
  route: SshRoute,
  chains: JumpChains = createJumpChains({ lingerMs: 0 }),
): Promise<SshConnection> {
  const wayIn = await chains.open(route);
  let target: OpenHop;
  try {
    target = await connectHop(route.target, wayIn.sock);
  } catch (error) {
    wayIn.release();
    const failure = hopFailure(route.target, undefined, error);
    throw await wayIn.explain(failure);
  }
  // The first channel may wait on a delayed ACK after sshd's DEBUG lines: through a jump on every connection, on a
  // direct one when it is a forward (sshd confirms those late). Answered until it opens (ssh-prompt-ack.ts).
  const firstChannel = answerUntilFirstChannel(target.client, wayIn.sock ?? transportOf(target.client));
  let isReleased = false;
  const end = () => {
    firstChannel();
    target.client.end();
    if (isReleased) return;
    isReleased = true;
    wayIn.release();
  };
  // The target's close is the connection's loss (a jump that goes closes its forwards, so the target's socket too);
  // read as it settles, not a tick later: a channel that closes asks at once whether the connection is gone
  // (ssh-raw-channel.ts).
  void target.lost.then(end);
  return wrapClient(target, route.target.label, { end, opened: firstChannel });
}

function wrapClient(
  target: OpenHop,
  label: string,
  hooks: { end: () => void; opened: () => void },
): SshConnection {
  const { client, lost } = target;
  const { end, opened } = hooks;
  let isOpen = true;
  void lost.then(() => (isOpen = false));
  const settled = <T>(opening: Promise<T>): Promise<T> =>
    opening.finally(() => {
      opened();
    });
  return {
    id: nextConnectionId++,
    label,
    authenticatedWith: target.authenticatedWith,
    lost,
    isOpen: () => isOpen,
    exec: (command) =>
      settled(openChannel<ClientChannel>(label, (callback) => client.exec(command, callback))),
    execPty: (command, window) =>
      settled(
        openChannel<ClientChannel>(label, (callback) =>
          client.exec(
            command,
            { pty: { term: window.term, cols: window.cols, rows: window.rows } },
            callback,
          ),
        ),
      ),
    sftp: () => settled(openChannel<SFTPWrapper>(label, (callback) => client.sftp(callback))),
    forwardOut: (address, port) => settled(openForward(client, address, port)),
    end,
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
