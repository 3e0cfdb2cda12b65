import { z } from 'zod';

/** A browser signed in by `POST /login` (issue 25): its cookie and key, as a page on `origin` presents them. */
export interface SignedInBrowser {
  readonly origin: string;
  readonly cookie: string;
  readonly key: string;
}

export async function logInBrowser(origin: string, token: string): Promise<SignedInBrowser> {
  const response = await fetch(`${origin}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin },
    body: JSON.stringify({ token }),
  });
  if (response.status !== 200) throw new Error(`login refused with ${String(response.status)}`);
  const { key } = z.object({ key: z.string() }).parse(await response.json());
  const cookie = (response.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
  return { origin, cookie, key };
}

/** An API call as that browser's page makes it. */
export function callAs(browser: SignedInBrowser, path: string, method = 'GET'): Promise<Response> {
  return fetch(`${browser.origin}${path}`, {
    method,
    headers: { cookie: browser.cookie, 'x-catalyst-key': browser.key, origin: browser.origin },
  });
}

/** Its own session's id, from `GET /api/sessions`. */
export async function sessionIdOf(browser: SignedInBrowser): Promise<string> {
  const response = await callAs(browser, '/api/sessions');
  const listed = z
    .object({ sessions: z.array(z.object({ id: z.string(), current: z.boolean() })) })
    .parse(await response.json());
  const current = listed.sessions.find((session) => session.current);
  if (current === undefined) throw new Error('the browser has no current session');
  return current.id;
}

/** What its page's WebSocket presents: the cookie, the Origin, the key in a subprotocol. */
export function socketOptionsOf(browser: SignedInBrowser) {
  return {
    headers: { cookie: browser.cookie },
    origin: browser.origin,
    protocols: [`catalyst-key.${browser.key}`],
  };
}
