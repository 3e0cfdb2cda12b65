import {
  Agent,
  request as httpRequest,
  type ClientRequest,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { Duplex } from 'node:stream';
import { SESSION_KEY_HEADER } from '@catalyst/protocol';
import { isCatalystError } from '../../core/catalyst-error.ts';
import { isSwitchingProtocols, locateHeadEnd, rewriteHead } from '../../server/answer-head.ts';
import type { PreviewServerOptions } from '../preview-server.ts';
import type { PreviewFrames } from './preview-frames.ts';
import type { SetCookieFilter } from './preview-set-cookie.ts';

/**
 * How a preview's server (preview-proxy.ts) passes a request, or a WebSocket upgrade, on to the app and its answer
 * back: Catalyst's credentials taken out of what the app gets, the app's cookies filtered out of what the browser
 * gets, and the channels to the host kept alive between requests.
 */

/** Every cookie of Catalyst's own (the login's and every preview's) is named with this: the app never sees them. */
export const COOKIE_PREFIX = 'catalyst_';

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

/** A page of one sentence: what a preview’s server answers itself. */
export function page(sentence: string): string {
  return `<!doctype html><meta charset="utf-8"><title>Catalyst preview</title><p>${sentence}</p>\n`;
}

export function forward(
  request: IncomingMessage,
  response: ServerResponse,
  agent: Agent,
  options: PreviewServerOptions & { frames: PreviewFrames; setCookie: SetCookieFilter },
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

export function forwardUpgrade(
  request: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  options: PreviewServerOptions & { setCookie: SetCookieFilter },
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
  options: PreviewServerOptions & { setCookie: SetCookieFilter },
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
  options: PreviewServerOptions,
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

function isCatalystBearer(value: string, options: PreviewServerOptions): boolean {
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
export class UpstreamAgent extends Agent {
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
