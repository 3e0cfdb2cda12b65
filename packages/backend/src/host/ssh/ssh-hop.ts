import type { Duplex } from 'node:stream';
import { Client } from 'ssh2';
import { CatalystError } from '../../core/catalyst-error.ts';
import { createTrustCheck, type TrustCheck } from './host-key-trust.ts';
import { planAuth, type AuthPlan } from './ssh-auth.ts';
import { classifyConnectError, describeError } from './ssh-errors.ts';
import type { SshHop } from './ssh-route.ts';

/**
 * One handshake with one hop: over TCP, or over `sock` (a jump host's forward, a ProxyCommand's stdio). Rejects
 * with SSH_CONNECT_FAILED (details.retryable), SSH_AUTH_FAILED (with what could not be offered and why), or one of
 * the host key codes (host-key-trust.ts).
 */

export interface OpenHop {
  readonly client: Client;
  /** Settles once the connection is gone, with why (e.g. `Keepalive timeout`). */
  readonly lost: Promise<string>;
  /** The identity that worked. */
  readonly authenticatedWith: string | undefined;
}

export async function connectHop(hop: SshHop, sock?: Duplex): Promise<OpenHop> {
  // With nothing to offer, the handshake still runs: an address that does not answer, or a host key known nowhere,
  // is what a person must hear of first; ssh2 then fails the authentication, with the plan's notes.
  const plan = await planAuth(hop.user, hop.identities);
  // The way in (a ProxyCommand that exited, a jump that closed) may be gone while the keys were read: ssh2 would
  // wait for its handshake timeout on a socket that never speaks again.
  if (sock !== undefined && (sock.destroyed || !sock.readable)) {
    throw new CatalystError('SSH_CONNECT_FAILED', `the way to ${hop.label} closed before the handshake`, {
      details: { host: hop.label, retryable: false },
    });
  }
  const trust = createTrustCheck(hop.hostKey);
  const client = new Client();
  const { ready, lost } = watchClient(client, (error) => connectFailure(hop, { trust, plan, error }));
  try {
    client.connect({
      host: hop.hostName,
      port: hop.port,
      username: hop.user,
      ...(sock === undefined ? {} : { sock }),
      authHandler: plan.handler,
      readyTimeout: hop.readyTimeoutMs,
      keepaliveInterval: hop.keepaliveIntervalMs,
      keepaliveCountMax: hop.keepaliveCountMax,
      hostVerifier: trust.verify,
      algorithms: { serverHostKey: trust.algorithms },
    });
  } catch (error) {
    ready.catch(() => undefined);
    client.end();
    throw classifyConnectError(error, hop.label);
  }
  // Without TCP_NODELAY each exec round trip waits ~40 ms on Nagle plus delayed ACK (§8); the socket exists now.
  client.setNoDelay(true);
  await ready;
  return { client, lost, authenticatedWith: plan.lastOffered() };
}

/**
 * A permanent 'error' listener: after a failed connect ssh2 can emit a second 'error' (e.g. `Connection lost
 * before handshake` after a ready timeout), which would crash a process that used once('error') (§5, §10.6). An
 * agent that fails (`level: 'agent'`) is not the connection failing: ssh2 goes on with the next method.
 */
function watchClient(
  client: Client,
  failure: (error: unknown) => CatalystError,
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
      if (!isReady) failConnect(failure(lastError ?? new Error('closed before ready')));
      resolve(lastError === undefined ? 'the SSH connection closed' : describeError(lastError));
    });
  });
  client.on('error', (error: unknown) => {
    if (isAgentError(error)) return;
    lastError ??= error;
    if (!isReady) {
      failConnect(failure(error));
      client.end();
    }
  });
  return { ready, lost };
}

function isAgentError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'level' in error && error.level === 'agent';
}

function connectFailure(
  hop: SshHop,
  context: { trust: TrustCheck; plan: AuthPlan; error: unknown },
): CatalystError {
  const { trust, plan, error } = context;
  const refused = trust.refusal(hop.label, error);
  if (refused !== undefined) return refused;
  const classified = classifyConnectError(error, hop.label);
  if (classified.code !== 'SSH_AUTH_FAILED' || plan.notes.length === 0) return classified;
  return new CatalystError('SSH_AUTH_FAILED', `${classified.message}; also: ${plan.notes.join('; ')}`, {
    cause: error,
    details: classified.details,
  });
}
