import { randomBytes, timingSafeEqual } from 'node:crypto';
import {
  Agent,
  createServer,
  request as httpRequest,
  type ClientRequest,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { SESSION_KEY_HEADER } from '@catalyst/protocol';
import { isCatalystError } from '../core/catalyst-error.ts';
import { isSwitchingProtocols, locateHeadEnd, rewriteHead } from './answer-head.ts';
import { cookieValues } from './auth.ts';
import { MAX_REQUEST_HEAD_BYTES } from './http-server.ts';
import type { PreviewServer, PreviewServerOptions } from '../service/preview-server.ts';
import { listenOnLoopbacks } from './preview-listen.ts';
import { PreviewFrames } from './preview-frames.ts';
import { createSetCookieFilter, type SetCookieFilter } from './preview-set-cookie.ts';

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
 * cannot replace them. A cookie belongs to a host name, not a port (login-session.ts), which is why both ways
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
const COOKIE_PREFIX = 'catalyst_';

/** Headers that belong to one hop (RFC 9110 §7.6.1), never passed on as they are. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** What a preview's server is given (service/preview-server.ts, the port it implements). */
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

function page(sentence: string): string {
  return `<!doctype html><meta charset="utf-8"><title>Catalyst preview</title><p>${sentence}</p>\n`;
}

function forward(
  request: IncomingMessage,
  response: ServerResponse,
  agent: Agent,
  options: PreviewProxyOptions & { frames: PreviewFrames; setCookie: SetCookieFilter },
): void {
  const upstream: ClientRequest = httpRequest({
    agent,
    method: request.method,
    path: request.url,
    headers: upstreamHeaders(request, options),
    setHost: false,
  });
  upstream.on('response', (answer) => {
    // The app's status line and headers are untrusted: what Node's client parser accepts, writeHead can refuse
    // (a status of 099, a control character), and a throw here would escape into the channel's data handler and
    // end the whole SSH connection. The reason phrase is never passed on.
    const status = answer.statusCode ?? 0;
    try {
      if (status < 200 || status > 599) throw new Error(`status ${status}`);
      response.writeHead(status, downstreamHeaders(answer.rawHeaders, options.setCookie));
      options.frames.note(request, answer);
    } catch (error) {
      upstream.destroy();
      answer.resume();
      sendBadGateway(response, `it answered what is not HTTP (${messageOf(error)}).`);
      return;
    }
    answer.pipe(response);
    answer.on('error', () => response.destroy());
  });
  upstream.on('error', (error) => {
    sendBadGateway(
      response,
      isCatalystError(error) ? error.message : `the connection to it failed: ${error.message}`,
    );
  });
  response.on('close', () => {
    if (!response.writableFinished) upstream.destroy();
  });
  request.pipe(upstream);
}

function sendBadGateway(response: ServerResponse, why: string): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  response.writeHead(502, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
  response.end(page(`The preview’s server did not answer as it should: ${escapeHtml(why)}`));
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function forwardUpgrade(
  request: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  options: PreviewProxyOptions & { setCookie: SetCookieFilter },
): void {
  options.openUpstream().then(
    (upstream) => {
      if (socket.destroyed) {
        upstream.destroy();
        return;
      }
      const headers = upstreamHeaders(request, options, { keepUpgrade: true });
      const lines = [`${request.method ?? 'GET'} ${request.url ?? '/'} HTTP/1.1`];
      for (let index = 0; index < headers.length; index += 2)
        lines.push(`${headers[index]}: ${headers[index + 1]}`);
      upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head.length > 0) upstream.write(head);
      upstream.on('error', () => socket.destroy());
      upstream.once('close', () => socket.destroy());
      socket.once('close', () => upstream.destroy());
      relayResponseHead(upstream, socket, options);
      socket.pipe(upstream);
    },
    (error: unknown) => {
      options.logger.info({ err: error, port: options.port }, 'a preview upgrade found no server');
      socket.end(UPGRADE_BAD_GATEWAY);
    },
  );
}

const MAX_HEAD_BYTES = 64 * 1024;
const UPGRADE_BAD_GATEWAY = 'HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\nContent-Length: 0\r\n\r\n';

/**
 * The app's answer to an upgrade, its head filtered as an HTTP answer's is (a browser takes a `Set-Cookie` from a
 * WebSocket handshake too), read as a browser reads it and rewritten valid (answer-head.ts), then the bytes piped
 * on as they come. Only a `101` head passes: after an interim one (`100 Continue`) the browser reads the next head
 * too, which would go through unread (issue 25), and any other answer fails the handshake in the browser anyway,
 * so it becomes a 502.
 */
function relayResponseHead(
  upstream: Duplex,
  socket: Duplex,
  options: PreviewProxyOptions & { setCookie: SetCookieFilter },
): void {
  let pending = Buffer.alloc(0);
  const onData = (chunk: Buffer) => {
    // The end may straddle chunks: search again from just before the new bytes (`\n\r\n` is 3 long).
    const searched = Math.max(pending.length - 2, 0);
    pending = Buffer.concat([pending, chunk]);
    const end = locateHeadEnd(pending, searched);
    if (end === undefined) {
      if (pending.length > MAX_HEAD_BYTES) {
        upstream.destroy();
        socket.destroy();
      }
      return;
    }
    upstream.off('data', onData);
    upstream.pause();
    const head = rewriteHead(
      pending.subarray(0, end.headEnd).toString('latin1'),
      // A head is only filtered, never rewritten: a cookie the filter would change is dropped.
      (name, value) => name === 'set-cookie' && options.setCookie(value) !== value,
    );
    if (!isSwitchingProtocols(head)) {
      const status = head.slice(0, head.indexOf('\r\n')).slice(0, 100);
      options.logger.info({ port: options.port, status }, 'a preview upgrade was answered without a 101');
      // Written out before the app's side closes, which destroys the socket (forwardUpgrade).
      socket.end(UPGRADE_BAD_GATEWAY, () => upstream.destroy());
      return;
    }
    socket.write(Buffer.concat([Buffer.from(head, 'latin1'), pending.subarray(end.bodyStart)]));
    upstream.pipe(socket);
  };
  upstream.on('data', onData);
}

/**
 * The request's headers as the app gets them (a flat name/value list, in order): hop-by-hop ones dropped (an
 * upgrade keeps `Connection` and `Upgrade`), Catalyst's credentials removed, `Host` the app's own
 * (`localhost:<port>`: a dev server checks it) with the browser's in `X-Forwarded-Host`.
 */
function upstreamHeaders(
  request: IncomingMessage,
  options: PreviewProxyOptions,
  { keepUpgrade = false } = {},
): string[] {
  const out: string[] = [];
  const raw = request.rawHeaders;
  for (let index = 0; index < raw.length; index += 2) {
    const name = raw[index] ?? '';
    const value = raw[index + 1] ?? '';
    const lower = name.toLowerCase();
    if (lower === 'host' || lower === SESSION_KEY_HEADER || lower.startsWith('x-forwarded-')) continue;
    if (HOP_BY_HOP.has(lower) && !(keepUpgrade && (lower === 'connection' || lower === 'upgrade'))) continue;
    if (lower === 'authorization' && isCatalystBearer(value, options)) continue;
    if (lower === 'cookie') {
      const kept = value
        .split(';')
        .map((pair) => pair.trim())
        .filter((pair) => pair !== '' && !pair.startsWith(COOKIE_PREFIX));
      if (kept.length > 0) out.push(name, kept.join('; '));
      continue;
    }
    out.push(name, value);
  }
  // A body without a length (chunked) goes on chunked, said so: Node's client would otherwise write a GET's body
  // raw, which the app would read as a second request on the kept-alive channel.
  if (request.headers['transfer-encoding'] !== undefined && request.headers['content-length'] === undefined) {
    if (!keepUpgrade) out.push('Transfer-Encoding', 'chunked');
  }
  out.push('Host', `localhost:${options.port}`);
  if (request.headers.host !== undefined) out.push('X-Forwarded-Host', request.headers.host);
  out.push('X-Forwarded-Proto', 'http');
  return out;
}

function isCatalystBearer(value: string, options: PreviewProxyOptions): boolean {
  const match = /^Bearer +(\S+) *$/i.exec(value);
  return match?.[1] !== undefined && options.isCatalystToken(match[1]);
}

/** The app's answer headers, without hop-by-hop ones, its cookies as `setCookie` leaves them (preview-set-cookie.ts). */
function downstreamHeaders(raw: readonly string[], setCookie: SetCookieFilter): string[] {
  const out: string[] = [];
  for (let index = 0; index < raw.length; index += 2) {
    const name = raw[index] ?? '';
    const value = raw[index + 1] ?? '';
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower)) continue;
    const passed = lower === 'set-cookie' ? setCookie(value) : value;
    if (passed !== undefined) out.push(name, passed);
  }
  return out;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/**
 * An http.Agent over the host's channels: keep-alive, so a channel (an SSH direct-tcpip channel costs a round
 * trip to open) carries request after request. Node's Agent calls net.Socket methods on a kept socket (ref, unref,
 * setKeepAlive, setTimeout) that a channel does not have: they are no-ops on one. Overriding the Agent's
 * keepSocketAlive and reuseSocket instead would skip its own bookkeeping (reuseSocket removes the free socket's
 * error listener: one more listener per request, measured).
 */
class UpstreamAgent extends Agent {
  readonly #open: () => Promise<Duplex>;

  constructor(open: () => Promise<Duplex>) {
    super({ keepAlive: true, maxSockets: 64, maxFreeSockets: 16 });
    this.#open = open;
  }

  override createConnection(
    _options: unknown,
    callback?: (error: Error | null, stream: Duplex) => void,
  ): undefined {
    this.#open().then(
      (stream) => callback?.(null, withSocketMethods(stream)),
      (error: unknown) =>
        callback?.(error instanceof Error ? error : new Error(String(error)), undefined as never),
    );
    return undefined;
  }
}

const SOCKET_METHODS = ['ref', 'unref', 'setKeepAlive', 'setTimeout', 'setNoDelay'] as const;

/**
 * A stream the Agent can keep: the socket methods it calls, and no half-open state. An ssh2 channel is half-open
 * (allowHalfOpen): when the app closes a kept-alive connection (Node's server does after 5 s idle), sshd sends EOF
 * and the channel stays writable, never 'close'; the Agent would hand it to the next request, which would wait
 * forever (measured: the first request after 6 s idle hung). Ended by the far side, it is closed here, as a
 * net.Socket without allowHalfOpen closes itself.
 */
function withSocketMethods(stream: Duplex): Duplex {
  const target = stream as Duplex & Partial<Record<(typeof SOCKET_METHODS)[number], () => Duplex>>;
  for (const name of SOCKET_METHODS) {
    if (typeof target[name] !== 'function') target[name] = () => stream;
  }
  stream.once('end', () => {
    stream.destroy();
  });
  return stream;
}
