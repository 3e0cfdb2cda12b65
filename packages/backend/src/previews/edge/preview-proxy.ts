import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { cookieValues } from '../../auth/auth.ts';
import { MAX_REQUEST_HEAD_BYTES } from '../../server/http-server.ts';
import type { PreviewServer, PreviewServerOptions } from '../preview-server.ts';
import { listenOnLoopbacks } from './preview-listen.ts';
import { PreviewFrames } from './preview-frames.ts';
import { createSetCookieFilter, type SetCookieFilter } from './preview-set-cookie.ts';
import { COOKIE_PREFIX, UpstreamAgent, forward, forwardUpgrade, page } from './preview-forward.ts';

/**
 * One preview's server (issue 14): a port of Catalyst's own machine that forwards every request, WebSocket
 * upgrades included, to a port on the idea's host (Host.openTcp: an SSH direct-tcpip channel, or a local socket).
 * It is a server of its own, not a route of Catalyst's: nothing of Catalyst's API is reachable through it, and its
 * credential opens this preview alone.
 *
 * The credential: a one-time ticket (a minute) that the API hands out as a link; the link's answer sets the cookie
 * `catalyst_preview_<port>` (a random secret for this server's life) and redirects to `/`. Every request must carry
 * that cookie. What reaches the previewed app (code Claude wrote) never holds Catalyst's own credentials: cookies
 * named `catalyst_*` (the login's and every preview's) and the session key header are removed, and an
 * `Authorization` that carries Catalyst's token too; `Set-Cookie` answers for those names are dropped, so the app
 * cannot replace them. A cookie belongs to a host name, not a port (login-cookie.ts), which is why both ways
 * are filtered; under a name shared with Catalyst the app's other cookies are kept small and to the host
 * (preview-set-cookie.ts, issue 39), and a request head may be as large as Catalyst's own (http-server.ts).
 *
 * A site of its own (issue 25, finding 7): each server has a name, `p-<random>.localhost` (browsers resolve every
 * `*.localhost` name to loopback themselves, and Chromium keeps each one a site of its own: its cookies reach
 * neither Catalyst at 127.0.0.1 nor another preview, and a `Domain=localhost` cookie is refused), which its links
 * use when Catalyst is reached on loopback. A ticket opens the preview only under the host its link names, so the
 * cookie is never set for a name shared with Catalyst. Requests another site's page makes (another preview's
 * fetch or WebSocket) are refused whatever they carry: only a page load may come from elsewhere.
 *
 * In a frame of Catalyst's page (issue 31) the preview is a site other than the page's, and Chromium keeps no
 * ordinary cookie for such a frame, `SameSite=None; Secure` included (third-party cookies are blocked: measured
 * with Debian's Chromium 156). A frame's ticket sets the cookie `Partitioned` (CHIPS): kept, and sent, only under
 * Catalyst's page's site (`Secure` holds over plain http on a `*.localhost` name, a secure context). Another site's
 * page has no such cookie for it, so it cannot frame the preview signed in.
 */

export const ENTER_PATH = '/.catalyst-preview/enter';
const TICKET_MS = 60_000;

/** What a preview's server is given (previews/preview-server.ts, the port it implements). */
export type PreviewProxyOptions = PreviewServerOptions;
export type PreviewProxy = PreviewServer;

export async function startPreviewProxy(options: PreviewProxyOptions): Promise<PreviewProxy> {
  const secret = randomBytes(32).toString('base64url');
  const hostName = `p-${randomBytes(10).toString('hex')}.localhost`;
  const tickets: Tickets = new Map();
  const frames = new PreviewFrames();
  const agent = new UpstreamAgent(options.openUpstream);
  /** Sockets the server no longer tracks (upgraded, refused upgrades, CONNECTs): closed by close() itself. */
  const detached = new Set<Duplex>();
  /** Forwarded requests and WebSockets open now (inUse). */
  let inUse = 0;
  const detach = (socket: Duplex) => {
    detached.add(socket);
    socket.once('close', () => detached.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  let cookieName = `${COOKIE_PREFIX}preview`;
  const hasCookie = (request: IncomingMessage): boolean => {
    return cookieValues(request.headers.cookie, cookieName).some((presented) =>
      sameSecret(presented, secret),
    );
  };
  const server = createServer({ maxHeaderSize: MAX_REQUEST_HEAD_BYTES }, (request, response) => {
    if (request.url?.startsWith(ENTER_PATH) === true) {
      enter(request, response, { tickets, cookieName, secret });
      return;
    }
    if (isFromAnotherSite(request)) {
      refuseForeign(response);
      return;
    }
    if (!hasCookie(request)) {
      refuse(response);
      return;
    }
    options.onActivity();
    // A response that streams for long (server-sent events, a long poll) is someone viewing, as a WebSocket is.
    inUse++;
    response.once('close', () => {
      inUse--;
      options.onActivity();
    });
    forward(request, response, agent, {
      ...options,
      frames,
      setCookie: setCookieFilterOf(request, hostName),
    });
  });
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    detach(socket);
    if (isFromAnotherSite(request)) {
      socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    if (!hasCookie(request)) {
      socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    options.onActivity();
    inUse++;
    socket.once('close', () => {
      inUse--;
      options.onActivity();
    });
    forwardUpgrade(request, socket, head, { ...options, setCookie: setCookieFilterOf(request, hostName) });
  });
  // A CONNECT would make the preview a tunnel to anywhere its host reaches.
  server.on('connect', (_request: IncomingMessage, socket: Socket) => {
    detach(socket);
    socket.end('HTTP/1.1 405 Method Not Allowed\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
  });
  server.on('clientError', (_error, socket: Duplex) => {
    socket.destroy();
  });
  const listening = await listenOnLoopbacks(server, options.bind);
  const listenPort = listening.port;
  cookieName = `${COOKIE_PREFIX}preview_${listenPort}`;
  return {
    listenPort,
    hostName,
    mintEntry(origin, { embedder } = {}) {
      const now = Date.now();
      for (const [ticket, { expires }] of tickets) if (expires <= now) tickets.delete(ticket);
      const ticket = randomBytes(24).toString('base64url');
      tickets.set(ticket, {
        expires: now + TICKET_MS,
        host: new URL(origin).host,
        isFramed: embedder !== undefined,
      });
      if (embedder !== undefined) frames.embedIn(embedder);
      return `${ENTER_PATH}?ticket=${ticket}`;
    },
    frame: (embedder) => frames.latestFor(embedder),
    inUse: () => inUse,
    async close() {
      for (const socket of detached) socket.destroy();
      agent.destroy();
      // The companion listener's close waits for its connections, which the http server holds: a browser keeps
      // one alive (a frame of the app left open in Catalyst's page, measured: Stop waited minutes). So every
      // connection is ended before either close is awaited.
      const closed = Promise.all([
        listening.close(),
        new Promise<void>((resolve) => {
          server.close(() => {
            resolve();
          });
        }),
      ]);
      server.closeAllConnections();
      await closed;
    },
  };
}

/** The app's cookies, judged by the name this request came under: the preview's own, or one Catalyst shares. */
function setCookieFilterOf(request: IncomingMessage, hostName: string): SetCookieFilter {
  const host = (request.headers.host ?? '').toLowerCase().replace(/:\d*$/, '');
  return createSetCookieFilter({ isSharedName: host !== hostName, cookieHeader: request.headers.cookie });
}

function sameSecret(presented: string, secret: string): boolean {
  const a = Buffer.from(presented);
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Each ticket's expiry, the Host it opens the preview under, and whether it is a frame's. */
type Tickets = Map<string, { expires: number; host: string; isFramed: boolean }>;

/** A path of the preview's own for `to` (never `//host`, which a browser reads as another site), else `/`. */
const OWN_PATH = /^\/(?![/\\])[\x21-\x7e]{0,2047}$/;

function enter(
  request: IncomingMessage,
  response: ServerResponse,
  state: { tickets: Tickets; cookieName: string; secret: string },
): void {
  const query = new URL(request.url ?? '/', 'http://preview').searchParams;
  const ticket = query.get('ticket') ?? '';
  const to = query.get('to') ?? '/';
  const found = state.tickets.get(ticket);
  state.tickets.delete(ticket);
  response.setHeader('Cache-Control', 'no-store');
  response.setHeader('Referrer-Policy', 'no-referrer');
  // Under another Host (127.0.0.1 instead of the preview's own name) the cookie would be set for a site Catalyst
  // shares: the ticket is spent and nothing is set.
  const isOwnHost = found !== undefined && request.headers.host?.toLowerCase() === found.host;
  if (found === undefined || found.expires <= Date.now() || !isOwnHost) {
    response.writeHead(403, { 'Content-Type': 'text/html; charset=utf-8' });
    response.end(
      page('This preview link has been used or has expired. Open the preview again from Catalyst.'),
    );
    return;
  }
  const sameSite = found.isFramed ? 'SameSite=None; Secure; Partitioned' : 'SameSite=Lax';
  response.writeHead(303, {
    Location: OWN_PATH.test(to) ? to : '/',
    'Set-Cookie': `${state.cookieName}=${state.secret}; Path=/; HttpOnly; ${sameSite}`,
  });
  response.end();
}

/**
 * A request a page of another site made: another preview's fetch, form post or WebSocket (it may carry this
 * preview's cookie when both share a host name, as previews reached by a machine's name do). Fetch Metadata says
 * where it comes from; without it (an older browser), the Origin of a request a page made. A page load (GET, in a
 * tab or a frame) may come from anywhere: that is how Catalyst's link and its Preview tab's frame open the preview,
 * and the page that asked cannot read what it loads. Clients that are not browsers send neither and are not refused
 * here.
 */
function isFromAnotherSite(request: IncomingMessage): boolean {
  const site = request.headers['sec-fetch-site'];
  const origin = request.headers.origin;
  const isPageLoad =
    request.headers['sec-fetch-mode'] === 'navigate' &&
    (request.method === 'GET' || request.method === 'HEAD');
  if (site !== undefined) return site !== 'same-origin' && site !== 'none' && !isPageLoad;
  return origin !== undefined && origin !== `http://${request.headers.host ?? ''}`;
}

function refuseForeign(response: ServerResponse): void {
  response.writeHead(403, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
  response.end(page('A page of another site cannot reach this preview.'));
}

function refuse(response: ServerResponse): void {
  response.writeHead(401, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
  response.end(page('This preview opens from its idea’s page in Catalyst (Open preview).'));
}
