import QRCode from 'qrcode';

/**
 * A QR code as SVG that React draws itself (issue 29): the `qrcode` package makes the modules, this turns each row's
 * runs of dark modules into one path. No markup is injected and no image fetched, so the page's CSP is untouched.
 */

/** The quiet zone around the code, in modules: readers need 4 (ISO/IEC 18004). */
export const QR_MARGIN = 4;

export interface QrModules {
  readonly size: number;
  get(row: number, col: number): number | boolean;
}

export interface QrDrawing {
  /** Modules across, with the quiet zone: the viewBox's width and height. */
  readonly extent: number;
  /** The dark modules, one `M x y h w v 1 h -w z` per run. */
  readonly path: string;
}

export function drawQrCode(text: string): QrDrawing {
  return drawModules(QRCode.create(text, { errorCorrectionLevel: 'M' }).modules);
}

export function drawModules(modules: QrModules): QrDrawing {
  const runs: string[] = [];
  for (let row = 0; row < modules.size; row += 1) {
    let start = -1;
    for (let col = 0; col <= modules.size; col += 1) {
      const isDark = col < modules.size && Boolean(modules.get(row, col));
      if (isDark && start === -1) start = col;
      if (!isDark && start !== -1) {
        const width = col - start;
        runs.push(
          `M${String(start + QR_MARGIN)} ${String(row + QR_MARGIN)}h${String(width)}v1h-${String(width)}z`,
        );
        start = -1;
      }
    }
  }
  return { extent: modules.size + 2 * QR_MARGIN, path: runs.join('') };
}
