import type { Duplex } from 'node:stream';
import type { Client } from 'ssh2';

/**
 * Answers that carry a TCP ACK at once, for connections through a jump host. sshd leaves Nagle on for everything but
 * interactive sessions (it sets TCP_NODELAY for a pty), so a packet it sends while an earlier small one is unacked
 * waits for that ACK; the receiving kernel delays its ACK by ~40 ms when it has nothing to send. A connection of its
 * own rarely meets it (Linux ACKs at once while a connection is young), a jump's kept connection and the link from
 * the last jump to the target meet it on every burst: measured, each exec round trip through a kept bastion took
 * 50–96 ms instead of 5, the target's first channel waited 42 ms after its DEBUG lines (bench/ssh, docs/protocol.md).
 * An answer from our side, sent as each burst arrives, carries the ACK along.
 */

/**
 * A jump connection answers every packet it receives, for its whole life, with `no-more-sessions@openssh.com` (want
 * reply false: nothing comes back, so answers never answer answers). It is what `ssh -W` sends too: a jump's
 * connection only forwards. Returns the function that stops it.
 */
export function answerEveryPacket(client: Client, transport: Duplex | undefined): () => void {
  if (transport === undefined) return () => undefined;
  const answer = () => {
    try {
      // Without a callback ssh2 sends it with want_reply false. Its types ask for a callback.
      (client.openssh_noMoreSessions as (this: Client, callback?: unknown) => Client).call(client);
    } catch {
      // Not connected any more: whoever waits on the connection hears why.
    }
  };
  transport.on('data', answer);
  // What came with the authentication's success was read before this: answered now.
  answer();
  return () => transport.off('data', answer);
}

/** How long the target's connection answers packets at most, if no channel has opened by then. */
const TARGET_ANSWERS_MS = 2_000;

/**
 * The target's connection through a jump cannot send `no-more-sessions` (it opens sessions), so until its first
 * channel is open it answers each packet with a keepalive (`keepalive@openssh.com`, as ssh2's own keepalive sends it,
 * whose reply is matched the same way). Bounded: it stops at the first channel, or after TARGET_ANSWERS_MS. Uses
 * ssh2's internals (the keepalive's own calls); without them it does nothing and the connection is only slower.
 */
export function answerUntilFirstChannel(client: Client, transport: Duplex | undefined): () => void {
  if (transport === undefined || keepaliveOf(client) === undefined) return () => undefined;
  // One keepalive in flight at a time: its reply is a packet too, and must not be answered with another.
  let isWaiting = false;
  const answer = () => {
    if (isWaiting) return;
    const keepalive = keepaliveOf(client);
    if (keepalive === undefined || !transport.writable) return;
    isWaiting = true;
    try {
      keepalive(() => {
        isWaiting = false;
      });
    } catch {
      // Not connected any more.
    }
  };
  transport.on('data', answer);
  // What came with the authentication's success was read before this: answered now.
  answer();
  const timer = setTimeout(() => {
    stop();
  }, TARGET_ANSWERS_MS);
  timer.unref();
  const stop = () => {
    clearTimeout(timer);
    transport.off('data', answer);
  };
  return stop;
}

/**
 * ssh2's own keepalive, as its timer sends it: a slot in its queue of global-request callbacks (`replied` runs when
 * the reply comes), then the ping.
 */
function keepaliveOf(client: Client): ((replied: () => void) => void) | undefined {
  const internals = client as unknown as { _callbacks?: unknown; _protocol?: { ping?: unknown } };
  const callbacks = internals._callbacks;
  const protocol = internals._protocol;
  if (!Array.isArray(callbacks) || typeof protocol !== 'object' || typeof protocol.ping !== 'function') {
    return undefined;
  }
  const ping = protocol.ping as (this: unknown) => void;
  return (replied) => {
    // The reply (REQUEST_FAILURE) takes this slot, in order with every other global request's.
    (callbacks as unknown[]).push(replied);
    ping.call(protocol);
  };
}

/** The stream under an ssh2 Client: its TCP socket, or the forward or stdio it was given. Not in ssh2's types. */
export function transportOf(client: Client): Duplex | undefined {
  const sock: unknown = (client as unknown as { _sock?: unknown })._sock;
  return typeof sock === 'object' && sock !== null && 'on' in sock && 'off' in sock
    ? (sock as Duplex)
    : undefined;
}
