import { describe, expect, it } from 'vitest';
import { pairingBanner, startupPairingText } from './pairing-banner.ts';

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

  it('at start-up, makes no code and prints no link when stdout is not a terminal, only where to get one', async () => {
    let made = 0;
    const createLink = () => {
      made += 1;
      return 'http://192.168.1.20:7433/pair#code=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
    };
    const piped = await startupPairingText(false, createLink);
    expect(made).toBe(0);
    expect(piped).not.toContain('/pair#code=');
    expect(piped).toContain('"Open on another device"');
    expect(await startupPairingText(true, createLink)).toContain('/pair#code=AAAA');
    expect(made).toBe(1);
  });
});
