import { PAIRING_LIFETIME_MS } from '@catalyst/protocol';
import QRCode from 'qrcode';

/**
 * What `./scripts/start` prints when other devices can reach Catalyst (issue 29): a pairing link as a QR code for a
 * phone's camera, and as text. Printed to the person's terminal only, never to the log (startupPairingText).
 */
export async function pairingBanner(url: string): Promise<string> {
  const qr = await QRCode.toString(url, { type: 'terminal', small: true });
  const minutes = String(PAIRING_LIFETIME_MS / 60_000);
  return [
    `To open Catalyst on your phone, scan this code. Whoever scans it is signed in: it works once, within ${minutes} minutes.`,
    'For another device later, use "Open on another device" on the ideas page.',
    '',
    qr.trimEnd(),
    '',
    `  ${url}`,
    '',
  ].join('\n');
}

/**
 * What the start prints about pairing (issue 39, finding 2): the banner, with a new 10-minute pairing code, when
 * stdout is a terminal; otherwise no code is made and a line says where to get one. A stdout that is no terminal
 * is a log (journald, `docker logs`, `> catalyst.log`), where pino writes too: a link there signs in whoever reads it.
 */
export async function startupPairingText(isTerminal: boolean, createLink: () => string): Promise<string> {
  if (isTerminal) return pairingBanner(createLink());
  return [
    'A pairing link for another device is not printed: stdout is not a terminal, so it would end up in a log, where',
    'it would sign in whoever reads it. To open Catalyst on a phone, use "Open on another device" on the ideas page.',
    '',
  ].join('\n');
}
