import { STATUS_CODES, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { MAX_CLIENT_FRAME_BYTES, TERMINAL_WS_PATH } from '@catalyst/protocol';
import type { Logger } from 'pino';
import { WebSocketServer, type WebSocket } from 'ws';
import type { WsServices } from '../service/ports.ts';
import type { Auth } from '../auth/auth.ts';
import { startTerminalSocket, type TerminalsPort } from '../terminals/edge/terminal-socket.ts';
import { startWsConnection, type WsConnection } from './ws-connection.ts';
import type { ViewingTabs } from '../push/viewing-tabs.ts';
import { closeWithin } from './ws-close.ts';
import { closeOnSignOut } from '../auth/ws-sign-out.ts';
import { THROTTLED_LOG_MESSAGE } from '../auth/throttled-answer.ts';

/**
 * The WebSockets at `/ws` and, with terminals, `/ws/terminal` (terminal-socket.ts: a socket per terminal, so a
 * shell's bytes never queue behind an idea's events), on the HTTP server's `upgrade` event. Token and Origin are checked on the upgrade
 * request itself, so a refused client gets a plain 401/403 and no WebSocket ever exists for it. The hub owns its
 * connections (no module-level registry); close() ends them all.
 */

export const WS_PATH = '/ws';
export const DEFAULT_MAX_BUFFERED_BYTES = 8 * 1024 * 1024;
export const DEFAULT_HEARTBEAT_MS = 30_000;
/**
 * ws cannot refuse one oversized message and keep the connection: past `maxPayload` it closes with 1009. So
 * `maxPayload` sits above the protocol's limit: a frame up to this size is read and answered with FRAME_TOO_LARGE
 * (the connection stays); only a larger one is closed by ws with 1009.
 */
export const WS_MAX_PAYLOAD_BYTES = 4 * MAX_CLIENT_FRAME_BYTES;
/** How long close() waits for a client's close handshake before cutting it (a stalled client never answers). */
const CLOSE_GRACE_MS = 1000;

export interface WsHubOptions {
  server: Server;
  services: WsServices;
  auth: Auth;
  logger: Logger;
  /** A client whose unsent bytes pass this is closed with 4008. */
  maxBufferedBytes?: number;
  heartbeatMs?: number;
  /** Which browser sessions show which idea (their tabs' `viewing` frames), for push (issue 29). */
  viewing?: ViewingTabs;
  /** The open terminals (issue 31); without them `/ws/terminal` is not found. */
  terminals?: TerminalsPort;
  /** A terminal's socket whose input the pty has not taken for this long is no longer spared by the heartbeat. */
  maxInputWaitMs?: number;
}

export interface WsHub {
  readonly clientCount: number;
  /** Closes every client (1001), stops listening for upgrades and closes the WebSocket server. Idempotent. */
  close(): Promise<void>;
}

export function createWsHub(options: WsHubOptions): WsHub {
  const { server, auth, logger } = options;
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: WS_MAX_PAYLOAD_BYTES,
    // No compression: a small compressed frame could inflate far past every limit above.
    perMessageDeflate: false,
    clientTracking: false,
  });
  const connections = createConnections(options);
  const paths = new Set([WS_PATH, ...(options.terminals === undefined ? [] : [TERMINAL_WS_PATH])]);
  const onUpgrade = createUpgradeHandler({ wss, auth, logger, paths, accept: connections.accept });
  server.on('upgrade', onUpgrade);

  let closing: Promise<void> | undefined;
  const closeAll = async (): Promise<void> => {
    server.off('upgrade', onUpgrade);
    await connections.closeAll();
    await new Promise<void>((resolve) => {
      wss.close(() => {
        resolve();
      });
    });
  };
  return {
    get clientCount() {
      return connections.count();
    },
    close() {
      closing ??= closeAll();
      return closing;
    },
  };
}

/**
 * Path, then token (401; 429 with Retry-After for a Bearer while its address waits, auth.ts) and Origin (403), and
 * only then does ws see the request.
 */
function createUpgradeHandler(context: {
  wss: WebSocketServer;
  auth: Auth;
  logger: Logger;
  paths: ReadonlySet<string>;
  accept: (socket: WebSocket, request: IncomingMessage, path: string) => void;
}): (request: IncomingMessage, socket: Duplex, head: Buffer) => void {
  const { wss, auth, logger, accept } = context;
  return (request, socket, head) => {
    const path = pathOf(request);
    if (path === undefined || !context.paths.has(path)) {
      refuseUpgrade(socket, { status: 404, message: 'Not found.' });
      return;
    }
    const verdict = auth.checkRequest(request);
    if (!verdict.ok) {
      const remoteAddress = request.socket.remoteAddress;
      logger.warn({ status: verdict.status, remoteAddress }, 'websocket refused');
      if (verdict.status === 401 && verdict.isNewlyThrottled)
        logger.warn({ remoteAddress }, THROTTLED_LOG_MESSAGE);
      const retryAfter = verdict.status === 429 ? { 'Retry-After': String(verdict.retryAfterSeconds) } : {};
      refuseUpgrade(socket, { status: verdict.status, message: verdict.message, headers: retryAfter });
      return;
    }
    wss.handleUpgrade(request, socket, head, (client) => {
      accept(client, request, path);
      closeOnSignOut(auth, request, client);
    });
  };
}

/** The hub's connections and their heartbeat. */
function createConnections(options: WsHubOptions) {
  const { services, logger } = options;
  const maxBufferedBytes = options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES;
  const connections = new Map<WebSocket, WsConnection>();
  let connectionCount = 0;
  const heartbeat = setInterval(() => {
    for (const connection of connections.values()) connection.checkAlive();
  }, options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS);
  heartbeat.unref();
  return {
    count: () => connections.size,
    accept: (socket: WebSocket, request: IncomingMessage, path: string): void => {
      connectionCount += 1;
      const child = logger.child({ connection: connectionCount });
      if (path === TERMINAL_WS_PATH && options.terminals !== undefined) {
        const { terminals, maxInputWaitMs } = options;
        const limits = maxInputWaitMs === undefined ? {} : { maxInputWaitMs };
        connections.set(socket, startTerminalSocket({ socket, terminals, logger: child, ...limits }));
        socket.once('close', (code: number) => {
          connections.delete(socket);
          child.info({ code }, 'terminal websocket closed');
        });
        child.info('terminal websocket opened');
        return;
      }
      const login = options.auth.loginOf(request)?.id;
      const onViewing = (ideaId: string | null) => options.viewing?.set(socket, login, ideaId);
      connections.set(
        socket,
        startWsConnection({ socket, services, logger: child, maxBufferedBytes, onViewing }),
      );
      socket.once('close', (code: number) => {
        options.viewing?.forget(socket);
        connections.delete(socket);
        child.info({ code }, 'websocket closed');
      });
      child.info('websocket opened');
    },
    closeAll: async (): Promise<void> => {
      clearInterval(heartbeat);
      await Promise.all([...connections.keys()].map(closeClient));
    },
  };
}

function pathOf(request: IncomingMessage): string | undefined {
  const target = request.url ?? '';
  return URL.canParse(target, 'http://x') ? new URL(target, 'http://x').pathname : undefined;
}

/** A plain HTTP answer on the raw socket, then closed: the handshake never reaches ws. */
function refuseUpgrade(
  socket: Duplex,
  answer: { status: number; message: string; headers?: Readonly<Record<string, string>> },
): void {
  const { status } = answer;
  // The client may already be gone; a reset while refusing it is nothing to report.
  socket.on('error', () => socket.destroy());
  const body = `${answer.message}\n`;
  const head = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}`,
    'Connection: close',
    'Content-Type: text/plain; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    ...Object.entries(answer.headers ?? {}).map(([name, value]) => `${name}: ${value}`),
  ];
  socket.once('finish', () => socket.destroy());
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
}

function closeClient(socket: WebSocket): Promise<void> {
  return closeWithin(socket, { code: 1001, reason: 'server shutting down', graceMs: CLOSE_GRACE_MS });
}
