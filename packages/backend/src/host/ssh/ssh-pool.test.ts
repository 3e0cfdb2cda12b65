import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { CatalystError } from '../../core/catalyst-error.ts';
import type { SshPoolLimits } from './ssh-config.ts';
import type { ChannelOpenResult, SshConnection } from './ssh-connection.ts';
import { createSshPool, type SshPool } from './ssh-pool.ts';

// The pool's queueing and limits against fake connections; ssh-host.test.ts runs it against a real sshd.

class FakeChannel extends EventEmitter {
  close(): void {
    this.emit('close');
  }
}

class FakeConnection {
  readonly id: number;
  readonly label = 'fake';
  readonly authenticatedWith = undefined;
  readonly open = new Set<FakeChannel>();
  execCalls = 0;
  readonly lost: Promise<string>;
  #markLost: (reason: string) => void = () => undefined;
  #isOpen = true;

  constructor(
    id: number,
    readonly maxSessions: number,
  ) {
    this.id = id;
    this.lost = new Promise((resolve) => (this.#markLost = resolve));
  }

  // The pool never calls these itself: its callers' openers do, and the tests' openers call openFake().
  exec = (): Promise<ChannelOpenResult<never>> =>
    Promise.resolve({ kind: 'lost', message: 'not a real connection' });
  execPty = this.exec;
  sftp = this.exec;
  forwardOut = this.exec;
  isOpen = (): boolean => this.#isOpen;
  end = (): void => {
    this.drop('ended');
  };

  /** The connection dies: like ssh2, every open channel then emits 'close'. */
  drop(reason: string): void {
    if (!this.#isOpen) return;
    this.#isOpen = false;
    this.#markLost(reason);
    for (const channel of this.open) channel.close();
  }

  async openFake(): Promise<ChannelOpenResult<FakeChannel>> {
    this.execCalls++;
    await Promise.resolve();
    if (!this.#isOpen) return { kind: 'lost', message: 'Not connected' };
    if (this.open.size >= this.maxSessions)
      return { kind: 'refused', message: '(SSH) Channel open failure: open failed' };
    const channel = new FakeChannel();
    this.open.add(channel);
    channel.once('close', () => this.open.delete(channel));
    return { kind: 'opened', channel };
  }

  /** A direct-tcpip channel: sshd counts it against no MaxSessions. */
  async openForward(): Promise<ChannelOpenResult<FakeChannel>> {
    await Promise.resolve();
    if (!this.#isOpen) return { kind: 'lost', message: 'Not connected' };
    const channel = new FakeChannel();
    this.open.add(channel);
    channel.once('close', () => this.open.delete(channel));
    return { kind: 'opened', channel };
  }
}

class FakeServer {
  readonly connections: FakeConnection[] = [];
  /** Thrown by the next connect attempts, in order, before they succeed. */
  readonly failures: CatalystError[] = [];
  inFlight = 0;
  peakInFlight = 0;
  maxSessions = 10;

  connect = async (): Promise<SshConnection> => {
    this.inFlight++;
    this.peakInFlight = Math.max(this.peakInFlight, this.inFlight);
    await new Promise((resolve) => setImmediate(resolve));
    this.inFlight--;
    const failure = this.failures.shift();
    if (failure !== undefined) throw failure;
    const connection = new FakeConnection(this.connections.length + 1, this.maxSessions);
    this.connections.push(connection);
    return connection;
  };

  /** The opener a test hands the pool: a fake channel on whichever connection the pool picked. */
  readonly openOn = (connection: SshConnection): Promise<ChannelOpenResult<FakeChannel>> => {
    const fake = this.connections.find((candidate) => candidate.id === connection.id);
    if (fake === undefined) throw new Error(`unknown connection ${String(connection.id)}`);
    return fake.openFake();
  };

  readonly forwardOn = (connection: SshConnection): Promise<ChannelOpenResult<FakeChannel>> => {
    const fake = this.connections.find((candidate) => candidate.id === connection.id);
    if (fake === undefined) throw new Error(`unknown connection ${String(connection.id)}`);
    return fake.openForward();
  };
}

const LIMITS: SshPoolLimits = {
  maxRunsPerConnection: 8,
  maxConnections: 4,
  maxHandshakes: 2,
  connectAttempts: 3,
  connectBackoffMs: 1,
  idleMs: 60_000,
};

function setUp(
  limits: Partial<SshPoolLimits> = {},
  onRunWaiting?: () => void,
): { server: FakeServer; pool: SshPool } {
  const server = new FakeServer();
  const pool = createSshPool({
    label: 'fake',
    connect: server.connect,
    limits: { ...LIMITS, ...limits },
    ...(onRunWaiting === undefined ? {} : { onRunWaiting }),
  });
  return { server, pool };
}

function openRuns(server: FakeServer, pool: SshPool, count: number): Promise<FakeChannel>[] {
  return Array.from({ length: count }, () => pool.open('run', server.openOn));
}

function retryable(): CatalystError {
  return new CatalystError('SSH_CONNECT_FAILED', 'Connection lost before handshake', {
    details: { retryable: true },
  });
}

describe('the SSH connection pool', () => {
  it('spreads 20 runs over 3 connections, at most maxHandshakes handshakes at a time', async () => {
    const { server, pool } = setUp();
    const channels = await Promise.all(openRuns(server, pool, 20));
    expect(channels).toHaveLength(20);
    expect(server.connections.map((connection) => connection.open.size)).toEqual([8, 8, 4]);
    expect(server.peakInFlight).toBe(2);
    expect(pool.stats()).toMatchObject({
      connectionsOpened: 3,
      openChannels: 20,
      queued: 0,
      channelRefusals: 0,
    });
    await pool.close();
  });

  it('queues runs FIFO once every connection is full, and serves them as channels close', async () => {
    const { server, pool } = setUp({ maxConnections: 1, maxRunsPerConnection: 2 });
    const [first, second] = await Promise.all(openRuns(server, pool, 2));
    const order: number[] = [];
    const queued = openRuns(server, pool, 2).map((run, index) => run.then(() => order.push(index)));
    await new Promise((resolve) => setImmediate(resolve));
    expect(pool.stats().queued).toBe(2);
    first?.close();
    second?.close();
    await Promise.all(queued);
    expect(order).toEqual([0, 1]);
    expect(server.connections).toHaveLength(1);
    await pool.close();
  });

  it('lets a control channel (a kill, SFTP) pass queued runs', async () => {
    const { server, pool } = setUp({ maxConnections: 1, maxRunsPerConnection: 2 });
    await Promise.all(openRuns(server, pool, 2));
    const waiting = openRuns(server, pool, 1)[0];
    const control = await pool.open('control', server.openOn);
    expect(control).toBeInstanceOf(FakeChannel);
    expect(pool.stats()).toMatchObject({ openChannels: 3, queued: 1 });
    await pool.close();
    await expect(waiting).rejects.toMatchObject({ code: 'CONNECTION_LOST' });
  });

  it('asks for a run channel back once per run that waits with no connection left to add, not for control work', async () => {
    let asked = 0;
    const { server, pool } = setUp({ maxConnections: 2, maxRunsPerConnection: 1 }, () => asked++);
    const held = await Promise.all(openRuns(server, pool, 2));
    await pool.open('control', server.openOn);
    await new Promise((resolve) => setImmediate(resolve));
    expect(asked).toBe(0);
    const waiting = openRuns(server, pool, 2);
    await new Promise((resolve) => setImmediate(resolve));
    expect(asked).toBe(2);
    // A channel given back serves one; the other keeps waiting without asking again.
    held[0]?.close();
    await waiting[0];
    await new Promise((resolve) => setImmediate(resolve));
    expect({ asked, queued: pool.stats().queued }).toEqual({ asked: 2, queued: 1 });
    await pool.close();
    await expect(waiting[1]).rejects.toMatchObject({ code: 'CONNECTION_LOST' });
  });

  it('learns a lower MaxSessions from a refused channel and uses another connection', async () => {
    const { server, pool } = setUp();
    server.maxSessions = 3;
    await Promise.all(openRuns(server, pool, 5));
    const [first, second] = server.connections;
    expect(first?.open.size).toBe(3);
    expect(second?.open.size).toBe(2);
    // The two refused attempts on the first connection were not repeated there.
    expect(first?.execCalls).toBe(5);
    expect(pool.stats().channelRefusals).toBe(2);
    await pool.close();
  });

  it('retries a handshake lost to MaxStartups throttling, with backoff', async () => {
    const { server, pool } = setUp();
    server.failures.push(retryable(), retryable());
    await pool.open('run', server.openOn);
    expect(pool.stats()).toMatchObject({ handshakeAttempts: 3, connectionsOpened: 1, handshakeFailures: 0 });
    await pool.close();
  });

  it('fails at once on an error a retry cannot fix, and gives up after connectAttempts', async () => {
    const { server, pool } = setUp();
    server.failures.push(new CatalystError('SSH_AUTH_FAILED', 'refused'));
    await expect(pool.open('run', server.openOn)).rejects.toMatchObject({
      code: 'SSH_AUTH_FAILED',
    });
    expect(pool.stats().handshakeAttempts).toBe(1);
    server.failures.push(retryable(), retryable(), retryable());
    await expect(pool.open('run', server.openOn)).rejects.toMatchObject({
      code: 'SSH_CONNECT_FAILED',
    });
    expect(pool.stats()).toMatchObject({ handshakeAttempts: 4, handshakeFailures: 2 });
    await pool.close();
  });

  it('evicts a lost connection, closing its channels, and connects afresh for the next request', async () => {
    const { server, pool } = setUp();
    const channel = await pool.open('run', server.openOn);
    const closed = new Promise((resolve) => channel.once('close', resolve));
    server.connections[0]?.drop('Keepalive timeout');
    await closed;
    await pool.open('run', server.openOn);
    expect(server.connections).toHaveLength(2);
    expect(pool.stats()).toMatchObject({ connectionsOpened: 2, openConnections: 1, openChannels: 1 });
    await pool.close();
  });

  it('closes a connection once it has been idle for idleMs', async () => {
    const { server, pool } = setUp({ idleMs: 5 });
    const channel = await pool.open('run', server.openOn);
    const connection = server.connections[0];
    channel.close();
    await expect(connection?.lost).resolves.toBe('ended');
    expect(pool.stats().openConnections).toBe(0);
    await pool.close();
  });

  it('opens forwarded channels on a connection whose sessions are all taken, without a handshake', async () => {
    const { server, pool } = setUp();
    await Promise.all([...openRuns(server, pool, 8), pool.open('control', server.openOn)]);
    await pool.open('control', server.openOn);
    const forwards = await Promise.all(
      Array.from({ length: 50 }, () => pool.open('forward', server.forwardOn)),
    );
    expect(server.connections).toHaveLength(1);
    expect(pool.stats()).toMatchObject({ openConnections: 1, openChannels: 10, queued: 0 });
    for (const forward of forwards) forward.close();
    expect(pool.stats().openChannels).toBe(10);
    await pool.close();
  });

  it('keeps a connection with a forwarded channel open past idleMs, and closes it once that ends', async () => {
    const { server, pool } = setUp({ idleMs: 5 });
    const forward = await pool.open('forward', server.forwardOn);
    const connection = server.connections[0];
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(connection?.isOpen()).toBe(true);
    forward.close();
    await expect(connection?.lost).resolves.toBe('ended');
    await pool.close();
  });
});
