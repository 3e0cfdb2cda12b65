import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTempDir, freePort, type TempDir } from '@catalyst/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './cli-process.ts';

// Issue 40, items 3 and 4: a Catalyst started as a person starts it (main.ts in a process of its own) on a port
// other than the default, restarted, and the `catalyst` command with only CATALYST_CONFIG_DIR in common with it.

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const main = fileURLToPath(new URL('../../backend/src/main.ts', import.meta.url));
const LOGIN_LINK = /(http:\/\/127\.0\.0\.1:\d+)\/login#token=(\S+)/;
const START_TIMEOUT_MS = 60_000;

let config: TempDir;
let port: number;

beforeAll(async () => {
  config = await createTempDir('cli-port');
  port = await freePort();
  await writeFile(
    join(config.path, 'hosts.json'),
    JSON.stringify({ hosts: [{ name: 'here', kind: 'local' }] }),
  );
});

afterAll(async () => {
  await config.remove();
});

interface Started {
  child: ChildProcess;
  output: string;
}

/**
 * Starts Catalyst and resolves once it printed its login line whole; rejects if it exits first. `onTerminal`: under
 * script(1), whose pseudo-terminal makes stdout a terminal (it ends lines with CRLF).
 */
async function startCatalyst(onTerminal = false): Promise<Started> {
  const command = [process.execPath, '--import', 'tsx', main].map((part) => `'${part}'`).join(' ');
  const [file, args] = onTerminal
    ? ['script', ['-qec', command, '/dev/null']]
    : [process.execPath, ['--import', 'tsx', main]];
  const child = spawn(file, args, {
    cwd: repoRoot,
    // A group of its own: script(1) and the Catalyst under it stop together.
    detached: true,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: config.path,
      CATALYST_PORT: String(port),
      CATALYST_CONFIG_DIR: config.path,
      CATALYST_CONFIG_FILE: join(config.path, 'hosts.json'),
      CATALYST_IDEAS_ROOT: join(config.path, 'ideas'),
      CATALYST_LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const printed = new Promise<void>((resolve, reject) => {
    const onData = (chunk: string): void => {
      output += chunk;
      if (/\/login(#token=\S+)?\r?\n/.test(output)) resolve();
    };
    child.stdout.setEncoding('utf8').on('data', onData);
    child.stderr.setEncoding('utf8').on('data', onData);
    child.once('exit', (code) => {
      reject(new Error(`Catalyst exited ${String(code)}:\n${output}`));
    });
  });
  await printed;
  return { child, output };
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = once(child, 'exit');
  if (child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
  await exited;
}

describe('a Catalyst on another port than the default', () => {
  it(
    'prints the real login link after a restart, and `catalyst` finds it with only CATALYST_CONFIG_DIR',
    { timeout: 3 * START_TIMEOUT_MS },
    async () => {
      const first = await startCatalyst();
      await stop(first.child);
      const token = (await readFile(join(config.path, 'token'), 'utf8')).trim();
      expect(LOGIN_LINK.exec(first.output)?.slice(1)).toEqual([`http://127.0.0.1:${String(port)}`, token]);

      // Into a log (stdout no terminal), a restart names the token file rather than copying the link again.
      const logged = await startCatalyst();
      await stop(logged.child);
      expect(logged.output).not.toContain(token);
      expect(logged.output).toContain(`the access token in the file ${join(config.path, 'token')}`);

      const again = await startCatalyst(true);
      try {
        // Item 3: on a terminal, the token file's link again, not a placeholder.
        expect(again.output).not.toContain('<CATALYST_TOKEN>');
        expect(LOGIN_LINK.exec(again.output)?.slice(1)).toEqual([`http://127.0.0.1:${String(port)}`, token]);

        // Item 4: neither --url, CATALYST_URL nor CATALYST_PORT; the address Catalyst left beside its token.
        const listed = await runCli(['ideas'], {
          cwd: config.path,
          env: { CATALYST_CONFIG_DIR: config.path },
        });
        expect(listed, listed.stderr).toMatchObject({ code: 0, stderr: '' });
        expect(listed.stdout).toContain('No ideas yet');
      } finally {
        await stop(again.child);
      }
    },
  );
});
