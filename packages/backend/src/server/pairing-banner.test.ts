import { describe, expect, it } from 'vitest';
import { pairingBanner } from './pairing-banner.ts';

describe('pairingBanner', () => {
  it('is a QR code of the link drawn in the terminal, the link, and who it signs in for how long', async () => {
    const url = 'http://192.168.1.20:7433/pair#code=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
    const banner = await pairingBanner(url);
    expect(banner).toContain(`  ${url}\n`);
    expect(banner).toContain('Whoever scans it is signed in: it works once, within 10 minutes.');
    // Half blocks, two modules a character: a QR code of version 4 or so is 33 modules and a border wide.
    const rows = banner.split('\n').filter((line) => /[▄▀█]/.test(line));
    expect(rows.length).toBeGreaterThan(15);
  });
});
