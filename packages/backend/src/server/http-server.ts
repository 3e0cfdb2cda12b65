import { createHash } from 'node:crypto';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * Catalyst's HTTP server (the app and the WebSocket upgrades, app.ts), made to survive cookies it did not set
 * (issue 39). A preview reached by Catalyst's own name (a LAN name, a proxy: docs/security.md, "The preview's
 * frame") shares its cookies, a cookie belonging to a host name and not a port; whatever the app sets, or its
 * scripts set through `document.cookie`, goes with every request to Catalyst. Node refuses a request head over
 * 16 KiB with a bare 431, so many or big cookies would lock the person out of Catalyst for as long as they live.
 *
 * - The head may be up to 128 KiB: 32 cookies at the 4 KB a browser allows each. A browser keeps up to ~180 per
 *   name (~720 KB), so no limit covers all; a higher one only costs memory for each connection still sending its
 *   head, before anything is authenticated.
 * - Past that, the answer is still 431 but a page that says why, with a button that deletes the cookies the page can
 *   see (`document.cookie`: those an app's scripts set, never Catalyst's HttpOnly session) for every path above
 *   this one. No `Clear-Site-Data`: a request line alone can overflow the head (a long URL any site can navigate
 *   to), and that header would let any site sign the person out and wipe every cookie of the site (on
 *   `localhost`, of every port). What an app sets through its preview server is kept small and to `Path=/`
 *   beforehand (preview-set-cookie.ts). A request this large never reaches a route: the page deletes them itself.
 */

export const MAX_REQUEST_HEAD_BYTES = 128 * 1024;

export function createCatalystServer(app: RequestListener): Server {
  const server = createServer({ maxHeaderSize: MAX_REQUEST_HEAD_BYTES }, app);
  // Sockets already answered, this server's own (a WeakSet: a socket is forgotten with it).
  const answered = new WeakSet<Duplex>();
  server.on('clientError', (error: Error & { code?: unknown }, socket: Duplex) => {
    if (answered.has(socket)) return;
    answered.add(socket);
    answerClientError(error, socket);
  });
  return server;
}

/** Node's own answers to a request it could not parse (its default 'clientError' handling, which this replaces). */
const STATUS_LINES: Readonly<Record<string, string>> = {
  HPE_HEADER_OVERFLOW: '431 Request Header Fields Too Large',
  HPE_CHUNK_EXTENSIONS_OVERFLOW: '413 Payload Too Large',
  ERR_HTTP_REQUEST_TIMEOUT: '408 Request Timeout',
};

/**
 * Node emits 'clientError' once more for each chunk that arrives after the first failure; only the first is
 * answered. The answer is ended, not the socket destroyed: closing with the rest of a big head unread would reset
 * the connection, and a browser that gets a reset may drop the page it was sent.
 */
function answerClientError(error: Error & { code?: unknown }, socket: Duplex): void {
  // A response under way on this connection (keep-alive): an answer now would land in its middle (Node's own check).
  if (!socket.writable || error.code === 'ECONNRESET' || isAnswering(socket)) {
    socket.destroy();
    return;
  }
  const code = typeof error.code === 'string' ? error.code : '';
  socket.end(
    code === 'HPE_HEADER_OVERFLOW' ? OVERFLOW_ANSWER : bareAnswer(STATUS_LINES[code] ?? '400 Bad Request'),
  );
  // A client that keeps sending after the answer is not kept for ever.
  const cut = setTimeout(() => socket.destroy(), DRAIN_MS);
  socket.once('close', () => {
    clearTimeout(cut);
  });
}

const DRAIN_MS = 10_000;

function isAnswering(socket: Duplex): boolean {
  const message: unknown = Reflect.get(socket, '_httpMessage');
  return typeof message === 'object' && message !== null && Reflect.get(message, '_headerSent') === true;
}

function bareAnswer(statusLine: string): string {
  return `HTTP/1.1 ${statusLine}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`;
}

/** Every cookie the page sees, expired for each path from `/` down to this page's own. */
const CLEAR_SCRIPT = `document.getElementById('clear').addEventListener('click', function () {
  var paths = ['/'], path = '';
  location.pathname.split('/').filter(Boolean).forEach(function (part) { path += '/' + part; paths.push(path); });
  document.cookie.split(';').forEach(function (pair) {
    var name = pair.split('=')[0].trim();
    if (name) paths.forEach(function (at) { document.cookie = name + '=; Max-Age=0; Path=' + at; });
  });
  location.href = '/';
});`;

export const OVERFLOW_SCRIPT_HASH = `'sha256-${createHash('sha256').update(CLEAR_SCRIPT).digest('base64')}'`;

const OVERFLOW_PAGE = `<!doctype html>
<html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>Catalyst: too many cookies</title>
<h1>Catalyst could not read this request</h1>
<p>Your browser sent more cookies for this address than Catalyst accepts (${String(MAX_REQUEST_HEAD_BYTES / 1024)} KiB
of request headers). An app shown under the same address, such as a preview of an idea, most likely set them.</p>
<p>Delete the cookies this page can see (your Catalyst login is not among them), then Catalyst opens again.</p>
<p><button id="clear" type="button">Delete them and open Catalyst</button></p>
<p>If this page comes back, delete this site’s cookies in your browser’s settings (you will then log in again).</p>
<script>${CLEAR_SCRIPT}</script>
`;

const OVERFLOW_ANSWER = [
  'HTTP/1.1 431 Request Header Fields Too Large',
  'Content-Type: text/html; charset=utf-8',
  `Content-Length: ${String(Buffer.byteLength(OVERFLOW_PAGE))}`,
  'Cache-Control: no-store',
  `Content-Security-Policy: default-src 'none'; script-src ${OVERFLOW_SCRIPT_HASH}; frame-ancestors 'none'; base-uri 'none'`,
  'X-Content-Type-Options: nosniff',
  'X-Frame-Options: DENY',
  'Referrer-Policy: no-referrer',
  'Connection: close',
  '',
  OVERFLOW_PAGE,
].join('\r\n');
