import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import { createTempDir, type TempDir } from '@catalyst/testkit';

/** The web app exactly as it ships: `vite build` of packages/frontend into a temp dir the backend serves. */

export const frontendRoot = fileURLToPath(new URL('..', import.meta.url));

export async function buildApp(): Promise<TempDir> {
  const outDir = await createTempDir('web-build');
  // vitest sets NODE_ENV=test, which Vite would bake into the bundle (React's development build). The browser
  // tests drive the production build, as ./scripts/start serves it. Nothing else runs while this awaits.
  const nodeEnv = process.env['NODE_ENV'];
  process.env['NODE_ENV'] = 'production';
  try {
    await build({
      root: frontendRoot,
      configFile: fileURLToPath(new URL('../vite.config.ts', import.meta.url)),
      mode: 'production',
      build: {
        outDir: outDir.path,
        emptyOutDir: true,
      },
      logLevel: 'warn',
    });
  } catch (error) {
    await outDir.remove();
    throw error;
  } finally {
    if (nodeEnv === undefined) delete process.env['NODE_ENV'];
    else process.env['NODE_ENV'] = nodeEnv;
  }
  return outDir;
}
