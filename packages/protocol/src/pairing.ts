import { z } from 'zod';

/**
 * Pairing a phone (issue 29): a browser that is signed in (or a client with the token) asks for a one-time link,
 * `<origin>/pair#code=<code>`, shown as a QR code; the phone opens it, its page reads the code from the fragment
 * (which no browser sends to any server) and posts it to `POST /pair`, which starts a browser session as a login
 * does. A code works once, for 10 minutes (docs/security.md, "Pairing a phone").
 */

/** The page that redeems a code, and where `POST` takes it. */
export const PAIRING_PATH = '/pair';
/** The fragment's parameter: `/pair#code=…`. */
export const PAIRING_CODE_PARAM = 'code';
export const PAIRING_LIFETIME_MS = 10 * 60_000;

/** `POST /api/pairing`: the link to open on the other device, and when its code stops working. */
export const PairingLinkResponseSchema = z.object({
  url: z.url({ protocol: /^https?$/ }),
  expiresAt: z.iso.datetime(),
});
export type PairingLinkResponse = z.infer<typeof PairingLinkResponseSchema>;

/** `POST /pair`: the code from the link's fragment, in the body (never in a URL a proxy logs). */
export const RedeemPairingBodySchema = z.strictObject({ code: z.string().min(1).max(200) });
export type RedeemPairingBody = z.infer<typeof RedeemPairingBodySchema>;

/** The link a code is opened by: the code after `#`. */
export function pairingLink(origin: string, code: string): string {
  return `${origin}${PAIRING_PATH}#${PAIRING_CODE_PARAM}=${encodeURIComponent(code)}`;
}

/**
 * `localhost` (and `*.localhost`), 127.0.0.0/8, ::1, in brackets or not: an address only this machine can open.
 * The server does not point a pairing link there when it can help it; the page says so when it could not.
 */
export function isLoopbackHost(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  if (/^127(\.\d{1,3}){3}$/.test(name)) return true;
  return name === '::1' || name === '0:0:0:0:0:0:0:1' || name.startsWith('::ffff:127.');
}

/** The code of a pairing link's fragment (`#code=…`), or undefined. */
export function pairingCodeOf(fragment: string): string | undefined {
  const code = new URLSearchParams(fragment.replace(/^#/, '')).get(PAIRING_CODE_PARAM) ?? '';
  return code === '' ? undefined : code;
}
