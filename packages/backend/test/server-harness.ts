import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { createAuth } from '../src/auth/auth.ts';
import { createHttpApp } from '../src/server/http-app.ts';
import { createPairingCodes } from '../src/auth/pairing-codes.ts';
import { createWsHub, type WsHub } from '../src/server/ws-hub.ts';
import type { IdeasDouble } from './server-idea-double.ts';
import { createServiceDoubles, type ServiceDoubles } from './server-service-doubles.ts';

/**
 * The real edges on 127.0.0.1, port 0: express app and WebSocket hub on one http.Server, over the in-memory
 * service. Every log line is kept, so a test can prove the token never reached the log.
 */

export const TEST_TOKEN = 'test-token-0123456789abcdefghijklmnopqrstuvwxyz';

export interface ServerHarness {
  readonly baseUrl: string;
  readonly wsUrl: string;
  /** `127.0.0.1:<port>`, what a browser on the app's page sends as Host. */
  readonly host: string;
  /** Ideas and runs, in memory (the double most edge tests drive). */
  readonly service: IdeasDouble;
  /** Every capability's double, as the edges get them. */
  readonly services: ServiceDoubles;
  readonly hub: WsHub;
  readonly logs: string[];
  close(): Promise<void>;
}

export interface HarnessOptions {
  maxBufferedBytes?: number;
  heartbeatMs?: number;
  allowedOrigins?: string[];
  staticDir?: string;
}

export async function startServer(options: HarnessOptions = {}): Promise<ServerHarness> {
  const logs: string[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => logs.push(line) });
  const services = createServiceDoubles();
  const service = services.ideas;
  const auth = createAuth({ token: TEST_TOKEN, allowedOrigins: options.allowedOrigins ?? [] });
  const staticDir = options.staticDir === undefined ? {} : { staticDir: options.staticDir };
  let port = 0;
  const pairing = { codes: createPairingCodes(), originFor: () => `http://127.0.0.1:${String(port)}` };
  // Push routes against nothing stored: the edge tests do not send pushes (push-notify.test.ts does).
  const push = {
    publicKey: 'BTestKey',
    subscriptions: {
      list: () => [],
      add: () => Promise.reject(new Error('no push in the edge tests')),
      remove: () => Promise.resolve(false),
      removeSession: () => Promise.resolve(0),
      setMuted: () => Promise.resolve(false),
    },
  };
  const server = createServer(createHttpApp({ services, auth, logger, pairing, push, ...staticDir }));
  const hub = createWsHub({
    server,
    services,
    auth,
    logger,
    ...(options.maxBufferedBytes === undefined ? {} : { maxBufferedBytes: options.maxBufferedBytes }),
    ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
  });
  port = await listen(server);
  const host = `127.0.0.1:${port}`;
  return {
    baseUrl: `http://${host}`,
    wsUrl: `ws://${host}/ws`,
    host,
    service,
    services,
    hub,
    logs,
    async close() {
      await hub.close();
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => {
        server.close((error) => {
          if (error === undefined) resolve();
          else reject(error);
        });
      });
    },
  };
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address: AddressInfo | string | null = server.address();
      if (address === null || typeof address === 'string') reject(new Error('no TCP address'));
      else resolve(address.port);
    });
  });
}

export function bearer(token = TEST_TOKEN): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}
