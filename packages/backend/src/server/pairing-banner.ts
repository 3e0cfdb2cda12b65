import { PAIRING_LIFETIME_MS } from '@catalyst/protocol';
import QRCode from 'qrcode';

/**
 * What `./scripts/start` prints when other devices can reach Catalyst (issue 29): a pairing link as a QR code for a
 * phone's camera, and as text. Printed to the person's terminal only, like the login link, never to the log.
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
