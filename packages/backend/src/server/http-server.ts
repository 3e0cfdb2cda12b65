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
 * - Past that, the answer is still 431 but a page that says why, with `Clear-Site-Data: "cookies"`: the browser
 *   deletes the cookies of this site (Chrome 61, Firefox 63, Safari 17; only in a secure context, https or
 *   localhost), Catalyst's session too, so the person opens Catalyst again and logs in. Over plain http on a LAN
 *   name the browser ignores the header, and the page says how to delete them by hand. A request this large never
 *   reaches a route, so the page cannot wait for a click to clear them: it does so at once.
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
  if (!socket.writable || error.code === 'ECONNRESET') {
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

function bareAnswer(statusLine: string): string {
  return `HTTP/1.1 ${statusLine}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`;
}

const OVERFLOW_PAGE = `<!doctype html>
<html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>Catalyst: too many cookies</title>
<h1>Catalyst could not read this request</h1>
<p>Your browser sent more cookies for this address than Catalyst accepts (${String(MAX_REQUEST_HEAD_BYTES / 1024)} KiB
of request headers). An app shown under the same address, such as a preview of an idea, most likely set them.</p>
<p>Catalyst has asked your browser to delete this site’s cookies. You will need to log in again.</p>
<form action="/" method="get"><button>Open Catalyst again</button></form>
<p>If this page comes back, your browser did not delete them (it does so only over https or on localhost):
delete this site’s cookies in your browser’s settings, then open Catalyst again.</p>
`;

const OVERFLOW_ANSWER = [
  'HTTP/1.1 431 Request Header Fields Too Large',
  'Content-Type: text/html; charset=utf-8',
  `Content-Length: ${String(Buffer.byteLength(OVERFLOW_PAGE))}`,
  'Clear-Site-Data: "cookies"',
  'Cache-Control: no-store',
  "Content-Security-Policy: default-src 'none'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'X-Content-Type-Options: nosniff',
  'X-Frame-Options: DENY',
  'Referrer-Policy: no-referrer',
  'Connection: close',
  '',
  OVERFLOW_PAGE,
].join('\r\n');
