import type { Duplex } from 'node:stream';
import type { Client } from 'ssh2';
import { CatalystError, isCatalystError } from '../../core/catalyst-error.ts';
import { classifyConnectError, describeError } from './ssh-errors.ts';
import { connectHop, type OpenHop } from './ssh-hop.ts';
import { proxyCommandFailure, spawnProxyCommand } from './ssh-proxy-command.ts';
import { answerEveryPacket, transportOf } from './ssh-prompt-ack.ts';
import type { SshHop, SshRoute } from './ssh-route.ts';

/**
 * The way to a host's target: its ProxyCommand and jump hosts, opened once and shared by the host's connections
 * (the pool's, a reconnect's), as ssh's ControlMaster would share a bastion connection. The jump's handshake is then
 * paid once, not on every connection: a new connection through a kept chain costs the forward and the target's own
 * handshake, as a direct one costs the TCP connect and the handshake. A chain lives while a connection uses it and
 * `lingerMs` after the last one closed; a chain whose connection is lost is dropped, the next connection opens a new
 * one. Each host (ssh-host.ts) has its own chains, so a host's check, which runs on a host of its own, tries the whole
 * route again, the jump's host key included.
 */

export interface JumpChains {
  /**
   * A stream to the route's target through its chain: a jump's forward, or the ProxyCommand's stdio (never shared: a
   * stdio carries one connection). `release` gives the chain back: call it once, when the target's connection is gone.
   */
  open(route: SshRoute): Promise<WayIn>;
  /** Closes every chain, in use or not. */
  closeAll(): void;
}

export interface WayIn {
  /**
   * Undefined: dial the target over TCP. A chain that goes closes its forwards, so the target's connection over it
   * hears of it as its own loss.
   */
  readonly sock: Duplex | undefined;
  release(): void;
  /** The target's handshake failed over this way in: the ProxyCommand's own words, when it is one that exited. */
  explain(failure: CatalystError): Promise<CatalystError>;
}

/** How long an unused chain is kept: a reconnect or the pool's next connection within it skips the jump's handshake. */
export const JUMP_LINGER_MS = 15_000;

interface Chain {
  readonly last: OpenHop;
  readonly lost: Promise<string>;
  users: number;
  isLost: boolean;
  linger: NodeJS.Timeout | undefined;
  close(): void;
}

export function createJumpChains(options: { lingerMs?: number } = {}): JumpChains {
  const lingerMs = options.lingerMs ?? JUMP_LINGER_MS;
  const chains = new Map<string, Promise<Chain>>();

  let isClosed = false;

  /**
   * The chain of `key`: one that is open or opening is joined (the error of an opening that fails is its waiters' too,
   * so a refused key is not tried again by each of them); one that is gone is replaced.
   */
  const acquire = async (key: string, route: SshRoute): Promise<{ chain: Chain; isReused: boolean }> => {
    for (;;) {
      if (isClosed)
        throw new CatalystError('SSH_CONNECT_FAILED', 'the host is closed', {
          details: { retryable: false },
        });
      const existing = chains.get(key);
      if (existing === undefined) break;
      const chain = await existing;
      if (!chain.isLost) {
        take(chain);
        return { chain, isReused: true };
      }
      if (chains.get(key) === existing) chains.delete(key);
    }
    const opening = openChain(route);
    chains.set(key, opening);
    try {
      const chain = await opening;
      void chain.lost.then(() => {
        chain.isLost = true;
        if (chains.get(key) === opening) chains.delete(key);
      });
      take(chain);
      return { chain, isReused: false };
    } catch (error) {
      if (chains.get(key) === opening) chains.delete(key);
      throw error;
    }
  };

  const take = (chain: Chain) => {
    chain.users++;
    clearTimeout(chain.linger);
    chain.linger = undefined;
  };

  const release = (chain: Chain) => {
    chain.users--;
    if (chain.users > 0 || chain.isLost) return;
    if (isClosed) {
      chain.close();
      return;
    }
    chain.linger = setTimeout(() => {
      if (chain.users > 0) return;
      chain.close();
    }, lingerMs);
    // A kept chain never holds the process up; the close that ends Catalyst closes it anyway (closeAll).
    chain.linger.unref();
  };

  return {
    open: async (route) => {
      const [lastJump] = route.jumps.slice(-1);
      if (lastJump === undefined) return wayInDirect(route.proxyCommand);
      const key = JSON.stringify([route.proxyCommand ?? null, route.jumps.map(hopIdentity)]);
      for (let attempt = 0; ; attempt++) {
        const { chain, isReused } = await acquire(key, route);
        try {
          const sock = await forwardTo(chain.last.client, lastJump, route.target);
          return {
            sock,
            release: () => {
              release(chain);
            },
            explain: asIs,
          };
        } catch (error) {
          release(chain);
          // A kept chain may have died without a word yet (a bastion rebooted): once, a new one.
          if (isReused && attempt === 0 && isGoneForward(error)) {
            chain.isLost = true;
            chain.close();
            continue;
          }
          throw hopFailure(lastJump, route.target, error);
        }
      }
    },
    closeAll: () => {
      isClosed = true;
      for (const [key, opening] of chains) {
        chains.delete(key);
        void opening
          .then((chain) => {
            chain.close();
          })
          .catch(() => undefined);
      }
    },
  };
}

const asIs = (failure: CatalystError) => Promise.resolve(failure);

/** Straight to the target, over TCP or a ProxyCommand of its own (a command's stdio carries one connection). */
function wayInDirect(command: string | undefined): WayIn {
  if (command === undefined) return { sock: undefined, release: () => undefined, explain: asIs };
  const proxy = spawnProxyCommand(command);
  return {
    sock: proxy.sock,
    release: () => {
      proxy.stop();
    },
    explain: (failure) => proxyCommandFailure(proxy, command, failure),
  };
}

/** What makes two jumps the same connection: where it goes, as whom, with which keys and which trust. */
function hopIdentity(hop: SshHop): unknown {
  return [hop.hostName, hop.port, hop.user, hop.identities, hop.hostKey];
}

/** The ProxyCommand, then each jump's handshake and a forward from it to the next jump. */
async function openChain(route: SshRoute): Promise<Chain> {
  const opened: OpenHop[] = [];
  const stops: (() => void)[] = [];
  const proxy = route.proxyCommand === undefined ? undefined : spawnProxyCommand(route.proxyCommand);
  const close = () => {
    for (const stop of stops) stop();
    for (const hop of opened) hop.client.end();
    proxy?.stop();
  };
  let sock: Duplex | undefined = proxy?.sock;
  for (const [index, hop] of route.jumps.entries()) {
    try {
      const open = await connectHop(hop, sock);
      opened.push(open);
      stops.push(answerEveryPacket(open.client, sock ?? transportOf(open.client)));
      const next = route.jumps[index + 1];
      if (next !== undefined) sock = await forwardTo(open.client, hop, next);
    } catch (error) {
      close();
      const failure = hopFailure(hop, route.target, error);
      throw proxy !== undefined && index === 0 && route.proxyCommand !== undefined
        ? await proxyCommandFailure(proxy, route.proxyCommand, failure)
        : failure;
    }
  }
  const [last] = opened.slice(-1);
  if (last === undefined) throw new CatalystError('INTERNAL', 'a chain without a jump');
  // Any jump that goes takes the ones after it with it: the chain is lost with the first.
  const lost = Promise.race(opened.map((hop) => hop.lost));
  void lost.then(close);
  return { last, lost, users: 0, isLost: false, linger: undefined, close };
}

/** A forward refused because the jump's connection is gone (or never answered): a kept chain that died silently. */
class GoneForward extends Error {}

/**
 * A direct-tcpip channel from a jump host to the next hop, by name: the jump resolves it, as `ssh -W` does. A jump
 * that does not answer within the hop's handshake time is taken as gone (a kept chain whose bastion vanished without
 * a word would otherwise hold the connect until its keepalive gives up).
 */
function forwardTo(client: Client, jump: SshHop, next: SshHop): Promise<Duplex> {
  return new Promise<Duplex>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(
        new GoneForward(`the jump host ${jump.label} did not answer in ${String(jump.readyTimeoutMs)} ms`),
      );
    }, jump.readyTimeoutMs);
    timer.unref();
    try {
      client.forwardOut('127.0.0.1', 0, next.hostName, next.port, (error, channel) => {
        clearTimeout(timer);
        if (error === undefined) resolve(channel);
        else if (isConnectionGone(error)) reject(new GoneForward(error.message));
        else reject(jumpRefusal(jump, next, error));
      });
    } catch (error) {
      clearTimeout(timer);
      reject(
        isConnectionGone(error) ? new GoneForward(describeError(error)) : jumpRefusal(jump, next, error),
      );
    }
  });
}

/** ssh2's own words for a connection that is gone, on the raw error (never a sentence holding host names). */
function isConnectionGone(error: unknown): boolean {
  const message = error instanceof Error ? error.message : '';
  return message === 'No response from server' || message === 'Not connected';
}

function isGoneForward(error: unknown): boolean {
  return error instanceof GoneForward;
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
export function hopFailure(hop: SshHop, target: SshHop | undefined, error: unknown): CatalystError {
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
