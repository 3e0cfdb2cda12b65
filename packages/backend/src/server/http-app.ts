import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import express, { type Express, type RequestHandler } from 'express';
import type { Logger } from 'pino';
import type { Services } from '../service/ports.ts';
import type { PairingLinks } from '../auth/api-pairing.ts';
import type { WebPush } from '../push/open-web-push.ts';
import type { Auth } from '../auth/auth.ts';
import { createErrorHandler, JSON_BODY_LIMIT_BYTES, sendError } from './http-errors.ts';
import { createApiRouter } from './routes-api.ts';
import { createLoginRouter } from '../auth/routes-login.ts';
import { THROTTLED_LOG_MESSAGE } from '../auth/throttled-answer.ts';

/**
 * The HTTP side of Catalyst: `/login` and `POST /pair` (public; routes-login.ts), `/api/*` (token and origin checked before the body
 * is even read), and the built frontend when `staticDir` is given. The WebSocket is attached separately (ws-hub.ts).
 */

export interface HttpAppOptions {
  services: Services;
  auth: Auth;
  logger: Logger;
  /** The built frontend; it holds no secret, so it is served without the token (the page then logs in). */
  staticDir?: string;
  /** The session cookie is Secure (CATALYST_PUBLIC_URL is https). */
  secureCookie?: boolean;
  /** One-time pairing codes and where their links point (issue 29). */
  pairing: PairingLinks;
  /** Web Push: the key pages subscribe with and the subscriptions (issue 29). */
  push: Pick<WebPush, 'publicKey' | 'subscriptions'>;
}

/**
 * `default-src 'self'` also covers the same-origin WebSocket (CSP3 lets 'self' match ws:/wss:). No inline
 * script anywhere; the page cannot be framed (clickjacking) and sends no Referer. The web app manifest and the
 * service worker (/sw.js) are named too, same origin only, rather than left to the default. Styles may be inline
 * (`style-src 'self' 'unsafe-inline'`): the terminal's xterm.js writes its measured cell sizes and colours into
 * `<style>` elements it makes at run time (issue 31). Styles run no code; scripts stay same-origin only. Frames
 * only of `http://*.localhost:*`, the names of the previews' own servers (the Preview tab's frame, issue 31; a CSP
 * host can only start with `*.`, so `p-*` cannot be said), never of Catalyst's own origin or another name.
 */
const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy':
    "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-src http://*.localhost:*; frame-ancestors 'none'; manifest-src 'self'; worker-src 'self'",
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

export function createHttpApp(options: HttpAppOptions): Express {
  const { services, auth, logger } = options;
  const app = express();
  app.disable('x-powered-by');
  app.use(setSecurityHeaders, logRequests(logger));
  const secureCookie = options.secureCookie ?? false;
  app.use(
    createLoginRouter(auth, logger, {
      secureCookie,
      appServed: options.staticDir !== undefined,
      pairing: options.pairing.codes,
    }),
  );
  app.use(
    '/api',
    noStore,
    sendBuild(options.staticDir),
    requireAuth(auth, logger),
    express.json({ limit: JSON_BODY_LIMIT_BYTES }),
    createApiRouter(services, auth, { secureCookie, pairing: options.pairing, push: options.push }),
  );
  if (options.staticDir !== undefined) {
    app.use(
      express.static(options.staticDir, { setHeaders: installableAppHeaders(options.staticDir) }),
      serveAppShell(options.staticDir),
    );
  }
  app.use((_request, response) => {
    response.status(404).type('text/plain').send('Not found.\n');
  });
  app.use(createErrorHandler(logger));
  return app;
}

const setSecurityHeaders: RequestHandler = (_request, response, next) => {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) response.setHeader(name, value);
  next();
};

/** API answers are never stored by a browser or a proxy. */
const noStore: RequestHandler = (_request, response, next) => {
  response.setHeader('Cache-Control', 'no-store');
  next();
};

/**
 * Names the web app this server serves (`build-id.txt`, written by the frontend's build) on every API answer, so
 * a page from an older build offers a reload instead of failing on answers it was not written for (issue 39).
 * Read once: a running Catalyst serves one build. No header without a built app (the dev server, API-only tests).
 */
function sendBuild(staticDir: string | undefined): RequestHandler {
  const build = staticDir === undefined ? undefined : readBuildId(staticDir);
  return (_request, response, next) => {
    if (build !== undefined) response.setHeader('x-catalyst-build', build);
    next();
  };
}

function readBuildId(staticDir: string): string | undefined {
  try {
    const id = readFileSync(resolve(staticDir, 'build-id.txt'), 'utf8').trim();
    return /^[\x21-\x7e]{1,200}$/.test(id) ? id : undefined;
  } catch {
    // A build from before issue 39 has no id: its pages have none either, so there is nothing to compare.
    return undefined;
  }
}

/**
 * Token first (401), then origin (403): a cross-site page is refused even if a cookie came along. A Bearer from an
 * address that guessed wrong too often gets 429 with Retry-After (auth.ts); the moment it starts is logged once.
 */
function requireAuth(auth: Auth, logger: Logger): RequestHandler {
  return (request, response, next) => {
    const verdict = auth.checkRequest(request);
    if (verdict.ok) {
      next();
      return;
    }
    if (verdict.status === 429) response.setHeader('Retry-After', String(verdict.retryAfterSeconds));
    if (verdict.status === 401 && verdict.isNewlyThrottled)
      logger.warn({ remoteAddress: request.socket.remoteAddress }, THROTTLED_LOG_MESSAGE);
    sendError(response, { code: verdict.code, message: verdict.message, status: verdict.status });
  };
}

/**
 * Method, path (never the query string: an old-style login link carries the token there), status, duration. No
 * headers.
 */
function logRequests(logger: Logger): RequestHandler {
  return (request, response, next) => {
    const started = performance.now();
    const { method, path } = request;
    response.on('finish', () => {
      const ms = Math.round(performance.now() - started);
      logger.info({ method, path, status: response.statusCode, ms }, 'http request');
    });
    next();
  };
}

/**
 * The installable app's files (issue 29): the service worker is checked with the server on every load (`no-cache`:
 * stored, but revalidated), so a new build's worker is found at once; the manifest has its registered type.
 */
function installableAppHeaders(staticDir: string): (response: express.Response, path: string) => void {
  const worker = resolve(staticDir, 'sw.js');
  return (response, path) => {
    if (path === worker) response.setHeader('Cache-Control', 'no-cache');
    if (path.endsWith('.webmanifest'))
      response.setHeader('Content-Type', 'application/manifest+json; charset=utf-8');
  };
}

/** Client-side routes (`/ideas/…`) get the app's index.html; the app decides what to show. */
function serveAppShell(staticDir: string): RequestHandler {
  return (request, response, next) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      next();
      return;
    }
    response.sendFile('index.html', { root: staticDir }, (error: unknown) => {
      if (error !== undefined && error !== null) next(error);
    });
  };
}
