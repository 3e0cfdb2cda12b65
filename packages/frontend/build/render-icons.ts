import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

/**
 * Renders the app's PNG icons from their SVG sources in public/icons, with Debian's Chromium (never a downloaded
 * browser). Run it after changing an SVG, and commit the PNGs:
 *
 *   pnpm --filter @catalyst/frontend icons
 *
 * The "any" icons keep their transparent corners; the maskable ones and the apple-touch-icon are full-bleed.
 */

const CHROMIUM = '/usr/bin/chromium';
const iconsDir = fileURLToPath(new URL('../public/icons/', import.meta.url));

const RENDERS = [
  { source: 'icon.svg', output: 'favicon-32.png', size: 32 },
  { source: 'icon.svg', output: 'icon-192.png', size: 192 },
  { source: 'icon.svg', output: 'icon-512.png', size: 512 },
  { source: 'icon-maskable.svg', output: 'icon-maskable-192.png', size: 192 },
  { source: 'icon-maskable.svg', output: 'icon-maskable-512.png', size: 512 },
  { source: 'icon-maskable.svg', output: 'apple-touch-icon.png', size: 180 },
] as const;

async function renderIcons(): Promise<void> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'], headless: true });
  try {
    const page = await browser.newPage({ deviceScaleFactor: 1 });
    for (const { source, output, size } of RENDERS) {
      const svg = await readFile(join(iconsDir, source), 'utf8');
      const src = `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
      await page.setViewportSize({ width: size, height: size });
      await page.setContent(
        `<body style="margin:0"><img src="${src}" width="${size}" height="${size}" style="display:block"></body>`,
      );
      await page.locator('img').evaluate((image: HTMLImageElement) => image.decode());
      await page.screenshot({
        path: join(iconsDir, output),
        omitBackground: true,
        clip: { x: 0, y: 0, width: size, height: size },
      });
      console.log(`${output} (${size}×${size}) from ${source}`);
    }
  } finally {
    await browser.close();
  }
}

await renderIcons();
