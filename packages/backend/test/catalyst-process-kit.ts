import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { IdeaClient } from './service-harness.ts';
import { bundledFixture } from './fixture-bundle.ts';
import { prepareService, type ServiceOptions } from './service-config.ts';
import { openClient } from './server-ws-client.ts';

const fixture = fileURLToPath(new URL('./fixtures/catalyst-process.ts', import.meta.url));
const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));

/** A Catalyst in a process of its own (fixtures/catalyst-process.ts): one a test can SIGKILL. */
export interface CatalystProcess {
  readonly url: string;
  /** For a client of its own (a terminal's socket). */
  readonly token: string;
  connect(): Promise<IdeaClient>;
  /** SIGKILL, as a crash or the OOM killer would: resolves once the process is gone. */
  kill(): Promise<void>;
}

/** How long a Catalyst process may take to listen (a busy machine is slow). */
const START_LIMIT_MS = 45_000;

/**
 * Starts a Catalyst process on the given settings (`reuse`: the config dir and ideas of an in-process one;
 * `staticDir`: the web app it serves).
 */
export async function spawnCatalyst(options: ServiceOptions): Promise<CatalystProcess> {
  const { configDir, env } = await prepareService(options);
  const child: ChildProcessByStdio<null, Readable, Readable> = spawn(
    process.execPath,
    [bundledFixture(fixture), JSON.stringify({ env, homeDir: configDir.path, staticDir: options.staticDir })],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      resolve();
    }),
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const first = await new Promise<string>((resolve, reject) => {
    let out = '';
    // A start that hangs says so, with what the process logged, instead of running into the test's own limit.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the Catalyst process did not listen within ${String(START_LIMIT_MS)} ms: ${stderr}`));
    }, START_LIMIT_MS);
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const newline = out.indexOf('\n');
      if (newline === -1) return;
      clearTimeout(timer);
      resolve(out.slice(0, newline));
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`the Catalyst process exited before it listened: ${stderr}`));
    });
  });
  const { url, token } = z.strictObject({ url: z.string(), token: z.string() }).parse(JSON.parse(first));
  return {
    url,
    token,
    connect: async () =>
      new IdeaClient(
        await openClient(`${url.replace('http', 'ws')}/ws`, {
          headers: { authorization: `Bearer ${token}` },
        }),
      ),
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
