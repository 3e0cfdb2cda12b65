import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { SshdUser } from '@catalyst/testkit';

/**
 * Another user of the VM (issue 25, finding 6): a process of a test user other than the idea's that listens on an
 * address and port of the VM (this machine) and counts what connects to it. It answers any request with
 * `neighbour`, so a test sees it if a preview's traffic reaches it.
 */
export interface NeighbourListener {
  /** Connections it accepted so far. */
  connections(): number;
  stop(): Promise<void>;
}

const SCRIPT = `
const [address, port] = [process.env.NEIGHBOUR_ADDRESS, Number(process.env.NEIGHBOUR_PORT)];
require('node:net')
  .createServer((socket) => {
    process.stdout.write('connection\\n');
    socket.on('error', () => undefined);
    socket.end('HTTP/1.1 200 OK\\r\\nContent-Length: 9\\r\\nConnection: close\\r\\n\\r\\nneighbour');
  })
  .listen(port, address, () => process.stdout.write('listening\\n'));
`;

export async function startNeighbourListener(
  user: SshdUser,
  address: string,
  port: number,
): Promise<NeighbourListener> {
  const { uid, gid } = await idsOf(user.name);
  const child = spawn(process.execPath, ['-e', SCRIPT], {
    uid,
    gid,
    cwd: '/',
    env: { NEIGHBOUR_ADDRESS: address, NEIGHBOUR_PORT: String(port), PATH: '/usr/bin:/bin' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let count = 0;
  const lines = createInterface({ input: child.stdout });
  const listening = new Promise<void>((resolve, reject) => {
    lines.on('line', (line) => {
      if (line === 'listening') resolve();
      if (line === 'connection') count++;
    });
    child.once('exit', (code) => {
      reject(new Error(`the neighbour on [${address}]:${port} exited (${code}) before it listened`));
    });
  });
  await listening;
  return {
    connections: () => count,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGKILL');
      await once(child, 'exit');
    },
  };
}

async function idsOf(name: string): Promise<{ uid: number; gid: number }> {
  const line = (await readFile('/etc/passwd', 'utf8'))
    .split('\n')
    .find((entry) => entry.startsWith(`${name}:`));
  const [, , uid, gid] = line?.split(':') ?? [];
  if (uid === undefined || gid === undefined) throw new Error(`no passwd entry for ${name}`);
  return { uid: Number(uid), gid: Number(gid) };
}
