import { createConnection, createServer, type Socket } from 'node:net';

/**
 * A transparent TCP proxy on 127.0.0.1 (port 0) in front of the backend, so a test can cut the browser's
 * connections the way a network does: the page is loaded through the proxy's origin, and the backend accepts it
 * because the Origin matches the Host the browser asked for. While `hold()` is in force new connections wait
 * unanswered (no refusal the browser would log); `release()` lets them through.
 */
export interface TcpProxy {
  readonly url: string;
  /** Destroys every open connection, both sides; returns how many there were. */
  dropConnections(): number;
  /**
   * From now on the open connections still carry the browser's bytes to the backend, but the backend's answers
   * are lost on the way back (as when a network fails between a send and its answer); returns how many.
   */
  loseAnswers(): number;
  /**
   * From now on the open connections carry nothing either way, and the far side is never told when the near side
   * goes (as when a network path dies and the server hears nothing of it); returns how many.
   */
  freeze(): number;
  hold(): void;
  release(): void;
  /** New connections go to this port from now on (a backend restarted on another port behind the same origin). */
  retarget(port: number): void;
  close(): Promise<void>;
}

export async function startTcpProxy(first: { host: string; port: number }): Promise<TcpProxy> {
  let target = first;
  const open = new Set<Socket>();
  const upstreams = new Map<Socket, Socket>();
  const frozen = new Set<Socket>();
  let held: Socket[] | undefined;

  const track = (socket: Socket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    socket.on('error', () => socket.destroy());
  };

  const connectUpstream = (client: Socket) => {
    const upstream = createConnection(target);
    track(upstream);
    upstreams.set(upstream, client);
    upstream.on('close', () => upstreams.delete(upstream));
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('close', () => {
      if (!frozen.has(upstream)) upstream.destroy();
    });
    upstream.on('close', () => {
      frozen.delete(upstream);
      client.destroy();
    });
  };

  const server = createServer((client) => {
    track(client);
    if (held === undefined) connectUpstream(client);
    else held.push(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('tcp proxy: no TCP address');

  return {
    url: `http://127.0.0.1:${address.port}`,
    dropConnections() {
      const count = open.size;
      for (const socket of open) socket.destroy();
      return count;
    },
    loseAnswers() {
      for (const [upstream, client] of upstreams) {
        upstream.unpipe(client);
        upstream.on('data', () => undefined);
      }
      return upstreams.size;
    },
    freeze() {
      for (const [upstream, client] of upstreams) {
        frozen.add(upstream);
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.on('data', () => undefined);
        upstream.on('data', () => undefined);
      }
      return upstreams.size;
    },
    hold() {
      held ??= [];
    },
    retarget(port) {
      target = { ...target, port };
    },
    release() {
      const waiting = held ?? [];
      held = undefined;
      for (const client of waiting) if (!client.destroyed) connectUpstream(client);
    },
    async close() {
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      );
    },
  };
}
