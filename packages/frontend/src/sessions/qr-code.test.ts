import { describe, expect, it } from 'vitest';
import { drawModules, drawQrCode, QR_MARGIN } from './qr-code.ts';

describe('drawModules', () => {
  it('draws each run of dark modules of a row as one rectangle, inside the quiet zone', () => {
    // 1 1 0
    // 0 0 0
    // 1 0 1
    const rows = [
      [1, 1, 0],
      [0, 0, 0],
      [1, 0, 1],
    ];
    const drawing = drawModules({ size: 3, get: (row, col) => rows[row]?.[col] ?? 0 });
    expect(drawing.extent).toBe(3 + 2 * QR_MARGIN);
    expect(drawing.path).toBe('M4 4h2v1h-2zM4 6h1v1h-1zM6 6h1v1h-1z');
  });
});

describe('drawQrCode', () => {
  it('draws a pairing link as a code of a size a phone reads at a glance', () => {
    const drawing = drawQrCode(`http://192.168.1.20:7433/pair#code=${'A'.repeat(43)}`);
    // Version 5 or 6 at level M: 37 or 41 modules, plus the quiet zone.
    expect(drawing.extent).toBeGreaterThanOrEqual(37 + 8);
    expect(drawing.extent).toBeLessThanOrEqual(45 + 8);
    // The three finder patterns start with a run of 7 dark modules on their top rows.
    expect(drawing.path.startsWith('M4 4h7v1h-7z')).toBe(true);
  });
});
