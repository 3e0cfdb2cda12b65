import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isCatalystError } from './core/catalyst-error.ts';
import { startCatalyst } from './app.ts';
import { loadConfig } from './server/config.ts';
import { startupPairingText } from './auth/pairing-banner.ts';
import { isReachableFromElsewhere } from './auth/pairing-origin.ts';
import { loginBanner } from './auth/login-banner.ts';

// The process entry (scripts/start): config from the environment, every problem reported at once.
let config;
try {
  config = loadConfig(process.env);
} catch (error) {
  console.error(isCatalystError(error) ? error.message : String(error));
  process.exit(2);
}

// The web app scripts/start built; without it Catalyst still serves the API and the WebSocket.
const appDir = fileURLToPath(new URL('../../frontend/dist', import.meta.url));
const staticDir = existsSync(join(appDir, 'index.html')) ? appDir : undefined;
if (staticDir === undefined) console.warn(`No built web app in ${appDir}: serving the API only.`);

/**
 * The claude CLI `pnpm install` put into this clone (the test kit's devDependency): the local host's last resort
 * when this machine has no claude of its own. Absent after a production-only install.
 */
function findBundledClaude(): string | undefined {
  try {
    const require = createRequire(new URL('../../testkit/package.json', import.meta.url));
    const path = join(
      dirname(require.resolve('@anthropic-ai/claude-code/package.json')),
      'bin',
      'claude.exe',
    );
    return existsSync(path) ? path : undefined;
  } catch {
    return undefined;
  }
}
const bundledClaudePath = findBundledClaude();

const catalyst = await startCatalyst({
  config,
  ...(staticDir === undefined ? {} : { staticDir }),
  ...(bundledClaudePath === undefined ? {} : { bundledClaudePath }),
});
// The token goes after `#` (login-banner.ts): a browser never sends a fragment, so no proxy or server log holds it.
// The one place the token is printed: to the person who started Catalyst, on their terminal (a log gets it once).
console.log(
  loginBanner({
    baseUrl: config.publicUrl ?? catalyst.url,
    token: catalyst.token,
    tokenSource: catalyst.tokenSource,
    tokenPath: join(config.configDir, 'token'),
    // `isTTY` is undefined, not false, on a pipe or a file (its type says boolean): falsy there.
    output: { isTerminal: process.stdout.isTTY, isTokenNew: catalyst.isTokenGenerated },
  }),
);
// A phone cannot take a link from this terminal: when it can reach Catalyst at all, a QR code of a one-time link;
// only on a terminal, as stdout is otherwise a log that would keep a live sign-in link (issue 39, finding 2).
if (isReachableFromElsewhere(config)) {
  // `isTTY` is undefined, not false, on a pipe or a file.
  console.log(await startupPairingText(process.stdout.isTTY, () => catalyst.createPairingLink().url));
}

/**
 * The backstop of a shutdown (issue 25, finding 11): past it Catalyst exits whatever is still under way. Every file
 * call to a host has a shorter limit of its own (CATALYST_FILE_TIMEOUT_MS, 20 s by default), so a stuck host ends
 * a shutdown well before this.
 */
const SHUTDOWN_LIMIT_MS = 30_000;

let isStopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (isStopping) return;
    isStopping = true;
    setTimeout(() => {
      console.error(`Shutdown did not finish within ${String(SHUTDOWN_LIMIT_MS / 1000)} s; exiting anyway.`);
      process.exit(1);
    }, SHUTDOWN_LIMIT_MS).unref();
    // A restart or an update must not cost a build: Claude goes on in its session on the VM, and the next start
    // takes the run up (it is stopped there after CATALYST_DETACHED_LIMIT_MS if Catalyst does not come back).
    console.log(`\n${signal}: shutting down; running tasks go on on their VMs until Catalyst is back…`);
    catalyst.close({ keepRuns: true }).then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  });
}
