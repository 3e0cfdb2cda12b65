import { createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import type { Server } from 'node:http';

/**
 * Where a preview server listens (issue 25, finding 7): Catalyst's bind address, port 0, and the other loopback
 * address on the same port. Its links name `p-<random>.localhost`, which Chromium resolves to ::1 first, then
 * 127.0.0.1 (measured): listening on one of them alone would leave the other free for another user of this
 * machine to bind, who would then get the browser's requests, cookies included. A port whose other loopback
 * address is taken is given up for another one. A machine without IPv6 has no ::1 for anyone to take.
 */

export interface PreviewListening {
  port: number;
  /** Stops the companion listener (the http server itself is closed by its owner). */
  close(): Promise<void>;
}

const ATTEMPTS = 8;
const NO_ADDRESS = new Set(['EADDRNOTAVAIL', 'EAFNOSUPPORT']);

export async function listenOnLoopbacks(server: Server, bind: string): Promise<PreviewListening> {
  const other = companionOf(bind);
  for (let attempt = 1; ; attempt++) {
    const port = await listenOn(server, 0, bind);
    if (other === undefined) return { port, close: () => Promise.resolve() };
    // The same http server answers what the companion accepts: one set of connections, closed together.
    const companion = createTcpServer((socket) => {
      server.emit('connection', socket);
    });
    try {
      await listenOn(companion, port, other);
      return { port, close: () => closeTcp(companion) };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? '';
      if (NO_ADDRESS.has(code)) return { port, close: () => Promise.resolve() };
      await new Promise((resolve) => server.close(resolve));
      if (attempt >= ATTEMPTS) throw error;
    }
  }
}

/** The loopback address a listener on `bind` leaves to others: ::1 beside IPv4's, 127.0.0.1 beside ::1. */
function companionOf(bind: string): string | undefined {
  if (bind === '127.0.0.1' || bind === '0.0.0.0') return '::1';
  if (bind === '::1') return '127.0.0.1';
  // `::` holds both families (Node listens dual-stack); any other address is no loopback the links would name.
  return undefined;
}

function listenOn(server: Server | TcpServer, port: number, address: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, address, () => {
      server.off('error', reject);
      const bound = server.address();
      resolve(typeof bound === 'object' && bound !== null ? bound.port : 0);
    });
  });
}

function closeTcp(server: TcpServer): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => {
      resolve();
    });
  });
}
