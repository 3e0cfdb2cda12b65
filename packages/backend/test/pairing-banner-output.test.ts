import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTempDir, waitUntil, type TempDir } from '@catalyst/testkit';
import { afterEach, describe, expect, it } from 'vitest';

// Issue 39, finding 2: when other devices can reach Catalyst, its start (src/main.ts) makes a pairing code, valid
// 10 minutes, that signs in whoever opens its link. Printed to stdout, where pino logs too, it landed in journald,
// `docker logs` or `> catalyst.log`: a sign-in link in captured logs. It is printed on a terminal only (pairing.test.ts
// starts Catalyst under script(1) for that); anywhere else a line says where to get one.

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const main = fileURLToPath(new URL('../src/main.ts', import.meta.url));
const PAIRING_LINK = /\/pair#code=/;
const NO_TERMINAL = /not printed: stdout is not a terminal/;

let configDir: TempDir | undefined;

afterEach(async () => {
  await configDir?.remove();
  configDir = undefined;
});

/** Catalyst's own entry, reachable from other devices (a public URL), on its local host with no claude to run. */
async function catalystEnv(): Promise<Record<string, string>> {
  configDir = await createTempDir('pairing-banner');
  return {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    HOME: configDir.path,
    CATALYST_CONFIG_DIR: join(configDir.path, 'config'),
    CATALYST_IDEAS_ROOT: join(configDir.path, 'ideas'),
    CATALYST_CLAUDE_PATH: '/usr/bin/true',
    CATALYST_PORT: '0',
    CATALYST_TOKEN: 'a'.repeat(64),
    CATALYST_PUBLIC_URL: 'https://catalyst.example.com',
    CATALYST_LOG_LEVEL: 'info',
  };
}

/**
 * Runs `command` in a process group of its own until `output` shows `until`, then stops the group (SIGTERM: Catalyst
 * says so and exits) and resolves with all it printed, stdout and stderr together.
 */
async function outputOf(command: string[], env: Record<string, string>, until: RegExp): Promise<string> {
  const [file = '', ...args] = command;
  const child = spawn(file, args, { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const exited = once(child, 'exit');
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  try {
    await waitUntil(() => until.test(output), {
      timeoutMs: 45_000,
      what: `${String(until)} (output: ${output})`,
    });
  } finally {
    if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGTERM');
    await exited;
  }
  return output;
}

describe('the pairing link at start-up', () => {
  it(
    'is not printed when stdout is not a terminal (a service’s log): a line says where to get one',
    { timeout: 60_000 },
    async () => {
      const env = await catalystEnv();
      // Until the pairing part is out, whichever it is; the rest up to its exit is read too.
      const printed = new RegExp(`${NO_TERMINAL.source}|${PAIRING_LINK.source}`);
      const output = await outputOf([process.execPath, '--import', 'tsx', main], env, printed);
      expect(output).toMatch(NO_TERMINAL);
      expect(output).toContain('Open on another device');
      expect(output).not.toMatch(PAIRING_LINK);
      expect(output).not.toMatch(/[▄▀█]{4}/);
    },
  );
});
