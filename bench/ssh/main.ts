/**
 * The SSH host's costs, against its own private sshd on 127.0.0.1 (the test kit's):
 *   start      median ms from startRun() to the run's first stdout byte, on a pooled (warm) connection and on a new
 *              one (a fresh host each time: TCP, key exchange, auth, then the same run), 20 of each;
 *   throughput MB/s of `head -c 200000000 /dev/zero | base64` (270 MB of stdout) through the run wrapper and the
 *              RunHandle, against a raw ssh2 exec of the same command on a warm connection, median of 5 each.
 * Human-readable lines first; the last line is one JSON object:
 * {"pooledStartMs","newConnectionStartMs","startSpeedup","rawMBps","wrapperMBps","wrapperVsRaw","directConnectMs",
 *  "jumpConnectMs","jumpAddsOfDirect","keptJumpConnectMs","keptJumpAddsOfDirect"}; the last five: a new connection
 *  from an ssh_config alias, direct, through a ProxyJump bastion cold, and through the bastion connection a host
 *  keeps (bench/ssh/jump.ts).
 * Run it with scripts/bench-ssh.
 */
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunHandle } from '../../packages/backend/src/host/host.ts';
import { parseSshHostConfig, type SshHostConfig } from '../../packages/backend/src/host/ssh/ssh-config.ts';
import { openSshConnection, type SshConnection } from '../../packages/backend/src/host/ssh/ssh-connection.ts';
import { createSshHost, type SshHost } from '../../packages/backend/src/host/ssh/ssh-host.ts';
import { startSshd } from '../../packages/testkit/src/sshd.ts';
import { measureJump } from './jump.ts';

const STARTS = 20;
const THROUGHPUT_ROUNDS = 5;
const FLOOD = 'head -c 200000000 /dev/zero | base64';
const MB = 1e6;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

async function drain(stream: AsyncIterable<Uint8Array>): Promise<number> {
  let bytes = 0;
  for await (const chunk of stream) bytes += chunk.length;
  return bytes;
}

/** startRun() until the first stdout byte; the run is then read to its end. */
async function timeFirstByte(host: SshHost): Promise<number> {
  const started = performance.now();
  const handle = await host.startRun({ argv: ['sh', '-c', 'echo first'], cwd: '/' });
  const stderr = drain(handle.stderr);
  const iterator = handle.stdout[Symbol.asyncIterator]();
  await iterator.next();
  const elapsed = performance.now() - started;
  for (let next = await iterator.next(); next.done !== true; next = await iterator.next());
  await stderr;
  await expectExit(handle);
  return elapsed;
}

async function expectExit(handle: RunHandle): Promise<void> {
  const outcome = await handle.outcome;
  if (outcome.kind !== 'exited' || outcome.code !== 0)
    throw new Error(`run failed: ${JSON.stringify(outcome)}`);
}

async function measureStarts(config: SshHostConfig): Promise<{ pooled: number; fresh: number }> {
  const warm = createSshHost(config);
  await timeFirstByte(warm);
  const pooled: number[] = [];
  for (let i = 0; i < STARTS; i++) pooled.push(await timeFirstByte(warm));
  await warm.close();
  const fresh: number[] = [];
  for (let i = 0; i < STARTS; i++) {
    const host = createSshHost(config);
    fresh.push(await timeFirstByte(host));
    await host.close();
  }
  return { pooled: median(pooled), fresh: median(fresh) };
}

async function wrapperMBps(host: SshHost): Promise<number> {
  const started = performance.now();
  const handle = await host.startRun({ argv: ['sh', '-c', FLOOD], cwd: '/' });
  const [bytes] = await Promise.all([drain(handle.stdout), drain(handle.stderr)]);
  await expectExit(handle);
  return bytes / MB / ((performance.now() - started) / 1000);
}

async function rawMBps(connection: SshConnection): Promise<number> {
  const started = performance.now();
  const result = await connection.exec(FLOOD);
  if (result.kind !== 'opened') throw new Error(`raw exec failed: ${result.kind}`);
  const bytes = await readRaw(result.channel);
  return bytes / MB / ((performance.now() - started) / 1000);
}

/** The ssh2 exec channel, named without importing ssh2 (not a dependency of the bench). */
type ExecChannel = Extract<Awaited<ReturnType<SshConnection['exec']>>, { kind: 'opened' }>['channel'];

function readRaw(channel: ExecChannel): Promise<number> {
  return new Promise((resolve) => {
    let bytes = 0;
    channel.on('data', (chunk: Buffer) => (bytes += chunk.length));
    channel.stderr.resume();
    channel.once('close', () => {
      resolve(bytes);
    });
  });
}

/** A bare ssh2 exec of `echo first` until its first byte: the SSH layer's share of a start, without the wrapper. */
async function bareFirstByte(connection: SshConnection, started = performance.now()): Promise<number> {
  const result = await connection.exec('echo first');
  if (result.kind !== 'opened') throw new Error(`raw exec failed: ${result.kind}`);
  const channel = result.channel;
  // A tiny command's data, EOF and close can arrive in one segment and be emitted in one tick.
  const closed = once(channel, 'close');
  const elapsed = await new Promise<number>((resolve) => {
    channel.once('data', () => {
      resolve(performance.now() - started);
    });
  });
  channel.resume();
  channel.stderr.resume();
  await closed;
  return elapsed;
}

async function measureBareStarts(config: SshHostConfig): Promise<{ pooled: number; fresh: number }> {
  const settings = parseSshHostConfig(config);
  const warm = await openSshConnection(await settings.route());
  const pooled: number[] = [];
  for (let i = 0; i < STARTS; i++) pooled.push(await bareFirstByte(warm));
  warm.end();
  const fresh: number[] = [];
  for (let i = 0; i < STARTS; i++) {
    const started = performance.now();
    const connection = await openSshConnection(await settings.route());
    fresh.push(await bareFirstByte(connection, started));
    connection.end();
  }
  return { pooled: median(pooled), fresh: median(fresh) };
}

async function measureThroughput(config: SshHostConfig): Promise<{ raw: number; wrapper: number }> {
  // Both warm: one connection for the raw execs, one host (pooled connection) for the wrapped runs.
  const connection = await openSshConnection(await parseSshHostConfig(config).route());
  const host = createSshHost(config);
  const raw: number[] = [];
  const wrapper: number[] = [];
  try {
    for (let round = 0; round < THROUGHPUT_ROUNDS; round++) {
      raw.push(await rawMBps(connection));
      wrapper.push(await wrapperMBps(host));
    }
  } finally {
    connection.end();
    await host.close();
  }
  return { raw: median(raw), wrapper: median(wrapper) };
}

const sshd = await startSshd();
const bastion = await startSshd();
const scratch = await mkdtemp(join(tmpdir(), 'catalyst-bench-ssh-'));
try {
  const user = sshd.users.dash;
  const config: SshHostConfig = {
    address: sshd.host,
    port: sshd.port,
    user: user.name,
    privateKeyPath: sshd.clientKeyPath,
    hostKey: sshd.hostKeyLine,
  };
  console.log(`sshd on ${sshd.host}:${String(sshd.port)}, login user ${user.name} (${user.shell})`);
  const starts = await measureStarts(config);
  console.log(
    `start to first byte, median of ${String(STARTS)}: pooled ${starts.pooled.toFixed(1)} ms, new connection ${starts.fresh.toFixed(1)} ms`,
  );
  const bare = await measureBareStarts(config);
  console.log(
    `the SSH layer alone (a bare exec of echo, no wrapper): pooled ${bare.pooled.toFixed(1)} ms, new connection ${bare.fresh.toFixed(1)} ms (${(bare.fresh / bare.pooled).toFixed(1)}x)`,
  );
  const throughput = await measureThroughput(config);
  console.log(
    `270 MB of stdout, median of ${String(THROUGHPUT_ROUNDS)}: raw exec ${throughput.raw.toFixed(0)} MB/s, wrapper ${throughput.wrapper.toFixed(0)} MB/s`,
  );
  const jump = await measureJump({ target: sshd, bastion, dir: scratch }, bareFirstByte, median);
  console.log(
    `a new connection from an ssh_config alias, median of 20: direct ${jump.direct.toFixed(1)} ms, through a ProxyJump bastion ${jump.jumped.toFixed(1)} ms cold (the jump adds ${((jump.jumped - jump.direct) / jump.direct).toFixed(2)} of a direct connection), ${jump.kept.toFixed(1)} ms through the bastion connection the host keeps (adds ${((jump.kept - jump.direct) / jump.direct).toFixed(2)}; goal < 1)`,
  );
  const round = (value: number, digits: number) => Number(value.toFixed(digits));
  console.log(
    JSON.stringify({
      pooledStartMs: round(starts.pooled, 2),
      newConnectionStartMs: round(starts.fresh, 2),
      startSpeedup: round(starts.fresh / starts.pooled, 2),
      rawMBps: round(throughput.raw, 1),
      wrapperMBps: round(throughput.wrapper, 1),
      wrapperVsRaw: round(throughput.wrapper / throughput.raw, 3),
      directConnectMs: round(jump.direct, 2),
      jumpConnectMs: round(jump.jumped, 2),
      jumpAddsOfDirect: round((jump.jumped - jump.direct) / jump.direct, 3),
      keptJumpConnectMs: round(jump.kept, 2),
      keptJumpAddsOfDirect: round((jump.kept - jump.direct) / jump.direct, 3),
    }),
  );
} finally {
  await Promise.all([sshd.stop(), bastion.stop()]);
  await rm(scratch, { recursive: true, force: true });
}
