import { freePort } from './free-port.ts';
import { chmod, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signalIfAlive } from './process-tree.ts';
import {
  generateKeys,
  readHostPublicKey,
  sshdFiles,
  validateSshdConfig,
  writeSshdConfig,
  type SshdFiles,
  type SshdSettings,
} from './sshd-config.ts';
import { spawnSshd, type SshdProcess } from './sshd-process.ts';
import { ensureTestUsers, type SshdUsers } from './sshd-users.ts';

/** A private OpenSSH sshd on 127.0.0.1 with generated keys and known login users (field notes §0). */

export type { SshdSettings } from './sshd-config.ts';
export { RC_NOISE_STDERR, RC_NOISE_STDOUT, type SshdUser, type SshdUsers } from './sshd-users.ts';

export interface StartSshdOptions {
  /** sshd_config overrides, e.g. `{ MaxSessions: 2, ClientAliveInterval: 1 }` (field notes §4, §5). */
  settings?: SshdSettings;
  /** How long sshd may take to log that it listens; 10 s by default. */
  readyTimeoutMs?: number;
}

export interface SshdHandle {
  readonly host: '127.0.0.1';
  readonly port: number;
  /** The listening sshd; each connection runs in child processes of it. */
  readonly pid: number;
  /** A known_hosts line that pins this server's host key: `[127.0.0.1]:PORT ssh-ed25519 AAAA…`. */
  readonly hostKeyLine: string;
  /** The client's private key (ed25519, OpenSSH format, mode 0600), accepted for every user. */
  readonly clientKeyPath: string;
  readonly clientPrivateKey: string;
  readonly users: SshdUsers;
  /** sshd's log so far (LogLevel VERBOSE): connections, accepted and refused keys, sessions. */
  logText(): string;
  /** Awaits the first log line, past or future, that contains the string or matches the RegExp. */
  waitForLog(pattern: string | RegExp, timeoutMs?: number): Promise<string>;
  /** Ends sshd and every session it still runs, and removes its files; safe to call more than once. */
  stop(): Promise<void>;
}

const BIND_ATTEMPTS = 3;
const running = new Set<SshdHandle>();
const living = new Set<SshdProcess>();

export async function startSshd(options: StartSshdOptions = {}): Promise<SshdHandle> {
  const users = await ensureTestUsers();
  // sshd refuses to start without its privilege separation directory (field notes §0).
  await mkdir('/run/sshd', { recursive: true, mode: 0o755 });
  const files = sshdFiles(await mkdtemp(join(tmpdir(), 'catalyst-sshd-')));
  try {
    // mkdtemp makes it 0700, but sshd reads the authorized keys in it as the target user (field notes §0).
    await chmod(files.dir, 0o755);
    await generateKeys(files);
    const hostPublicKey = await readHostPublicKey(files);
    const clientPrivateKey = await readFile(files.clientKey, 'utf8');
    const { sshd, port } = await listenOnFreePort(files, options);
    return createHandle({ files, sshd, port, users, hostPublicKey, clientPrivateKey });
  } catch (error) {
    await rm(files.dir, { recursive: true, force: true });
    throw error;
  }
}

/** For afterAll: stops every sshd this module started and has not stopped; resolves to how many there were. */
export async function stopAllSshd(): Promise<number> {
  const leftovers = [...running];
  await Promise.all(leftovers.map((handle) => handle.stop()));
  return leftovers.length;
}

async function listenOnFreePort(
  files: SshdFiles,
  options: StartSshdOptions,
): Promise<{ sshd: SshdProcess; port: number }> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    await writeSshdConfig(files, port, options.settings ?? {});
    await validateSshdConfig(files);
    const sshd = trackLiving(spawnSshd(files.config));
    try {
      await sshd.waitForLog(`Server listening on 127.0.0.1 port ${port}.`, options.readyTimeoutMs ?? 10_000);
      return { sshd, port };
    } catch (error) {
      await sshd.terminate();
      await sshd.logClosed;
      // Another process may take the port between our probe releasing it and sshd binding it.
      if (attempt < BIND_ATTEMPTS && sshd.logText().includes('Address already in use')) continue;
      const reason = error instanceof Error ? error.message : String(error);
      const log = sshd.logText();
      throw new Error(`sshd on 127.0.0.1:${port} did not start: ${reason}\n--- sshd log ---\n${log}`, {
        cause: error,
      });
    }
  }
}

interface HandleParts {
  files: SshdFiles;
  sshd: SshdProcess;
  port: number;
  users: SshdUsers;
  hostPublicKey: string;
  clientPrivateKey: string;
}

function createHandle(parts: HandleParts): SshdHandle {
  const { files, sshd, port } = parts;
  let stopping: Promise<void> | undefined;
  const handle: SshdHandle = {
    host: '127.0.0.1',
    port,
    pid: sshd.pid,
    hostKeyLine: `[127.0.0.1]:${port} ${parts.hostPublicKey}`,
    clientKeyPath: files.clientKey,
    clientPrivateKey: parts.clientPrivateKey,
    users: parts.users,
    logText: sshd.logText,
    waitForLog: sshd.waitForLog,
    stop: () => (stopping ??= stopInstance(handle, sshd, files.dir)),
  };
  running.add(handle);
  return handle;
}

async function stopInstance(handle: SshdHandle, sshd: SshdProcess, dir: string): Promise<void> {
  try {
    await sshd.terminate();
  } finally {
    running.delete(handle);
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * A test worker that exits without stopAllSshd would orphan its sshd, which does not die with its parent; the
 * 'exit' hook runs synchronously, so it can only SIGKILL, and the temp dir stays behind.
 */
function trackLiving(sshd: SshdProcess): SshdProcess {
  if (!process.listeners('exit').includes(killLivingOnExit)) process.on('exit', killLivingOnExit);
  living.add(sshd);
  void sshd.exited.then(() => living.delete(sshd));
  return sshd;
}

function killLivingOnExit(): void {
  for (const sshd of living) signalIfAlive(sshd.pid, 'SIGKILL');
}
