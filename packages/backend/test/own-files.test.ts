import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createTempDir, type TempDir } from '@catalyst/testkit';
import { bundledFixture } from './fixture-bundle.ts';

/**
 * A power cut can leave a file Catalyst writes for itself empty or torn (issue 39). A real Catalyst process started
 * on such files starts anyway, with each one's empty default: the damaged file is set aside as
 * `<name>.broken-<timestamp>` (kept for a person to look at) with a warning. A file the person writes
 * (CATALYST_CONFIG_FILE) is still refused.
 */

const fixture = fileURLToPath(new URL('./fixtures/catalyst-warning-process.ts', import.meta.url));
const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const TOKEN = 'own-files-test-token-0123456789abcdefghijklmn';
const START_LIMIT_MS = 45_000;

/** What a crash between a write and its flush leaves: nothing, or the start of the JSON. */
const DAMAGED: Readonly<Record<string, string>> = {
  'sessions.json': '',
  'push-subscriptions.json': '{"version":1,"subscriptions":[{"sessionId":"',
  'added-hosts.json': '',
  'ideas-index.json': '{"version":1,"ideas":{"i-',
};

/** A browser's subscription, made with the VAPID public key of the damaged file. */
const OLD_KEY_SUBSCRIPTION = {
  sessionId: 'session-0123456789abcdef',
  endpoint: 'https://fcm.googleapis.com/fcm/send/old-key-subscription',
  keys: { p256dh: `B${'A'.repeat(86)}`, auth: 'A'.repeat(22) },
  createdAt: '2026-11-01T10:00:00.000Z',
  mutedIdeas: [],
};
const VapidFileSchema = z.object({ publicKey: z.string(), privateKey: z.string() });

let dir: TempDir | undefined;

afterEach(async () => {
  await dir?.remove();
  dir = undefined;
});

interface Started {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a Catalyst process until it listens (then kills it) or exits by itself. */
async function startOnce(env: Record<string, string>, homeDir: string): Promise<Started> {
  const child = spawn(process.execPath, [bundledFixture(fixture), JSON.stringify({ env, homeDir })], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = once(child, 'exit');
  const timer = setTimeout(() => child.kill('SIGKILL'), START_LIMIT_MS);
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    if (stdout.includes('\n')) child.kill('SIGKILL');
  });
  await exited;
  clearTimeout(timer);
  return { code: child.exitCode, stdout, stderr };
}

function envOf(configDir: string): Record<string, string> {
  return {
    CATALYST_PORT: '0',
    CATALYST_TOKEN: TOKEN,
    CATALYST_CONFIG_DIR: configDir,
    CATALYST_IDEAS_ROOT: join(configDir, 'ideas'),
    CATALYST_LOG_LEVEL: 'warn',
  };
}

describe('files Catalyst keeps for itself', () => {
  it('starts on empty or torn ones, warns, and keeps each aside as <name>.broken-<timestamp>', async () => {
    dir = await createTempDir('own-files');
    for (const [name, text] of Object.entries(DAMAGED)) {
      await writeFile(join(dir.path, name), text, { mode: 0o600 });
    }
    const started = await startOnce(envOf(dir.path), dir.path);
    expect(started.stdout, started.stderr).toMatch(/^\{"url":"http:\/\/127\.0\.0\.1:\d+"\}\n/);
    const names = await readdir(dir.path);
    const warnings = started.stderr.split('\n').filter((line) => line.includes('"level":40'));
    for (const [name, text] of Object.entries(DAMAGED)) {
      const aside = names.filter((entry) => entry.startsWith(`${name}.broken-`));
      expect(aside, name).toHaveLength(1);
      expect(await readFile(join(dir.path, aside[0] ?? ''), 'utf8')).toBe(text);
      expect(
        warnings.filter((line) => line.includes(aside[0] ?? '')),
        name,
      ).toHaveLength(1);
    }
  });

  it('makes new VAPID keys when their file is damaged, and drops the subscriptions made with the old ones', async () => {
    dir = await createTempDir('own-files');
    await writeFile(join(dir.path, 'push-vapid.json'), '', { mode: 0o600 });
    const subscriptions = { version: 1, subscriptions: [OLD_KEY_SUBSCRIPTION] };
    await writeFile(join(dir.path, 'push-subscriptions.json'), JSON.stringify(subscriptions), {
      mode: 0o600,
    });
    const started = await startOnce(envOf(dir.path), dir.path);
    expect(started.stdout, started.stderr).toMatch(/^\{"url":"http:\/\/127\.0\.0\.1:\d+"\}\n/);
    const aside = (await readdir(dir.path)).filter((entry) => entry.startsWith('push-vapid.json.broken-'));
    expect(aside).toHaveLength(1);
    expect(await readFile(join(dir.path, aside[0] ?? ''), 'utf8')).toBe('');
    const keys = VapidFileSchema.parse(JSON.parse(await readFile(join(dir.path, 'push-vapid.json'), 'utf8')));
    expect(keys.publicKey).toMatch(/^B[A-Za-z0-9_-]{86}$/);
    const kept = JSON.parse(await readFile(join(dir.path, 'push-subscriptions.json'), 'utf8')) as unknown;
    expect(kept).toEqual({ version: 1, subscriptions: [] });
    const warnings = started.stderr.split('\n').filter((line) => line.includes('"level":40'));
    expect(warnings.filter((line) => line.includes(aside[0] ?? ''))).toHaveLength(1);
    expect(warnings.filter((line) => /turn notifications on again/.test(line))).toHaveLength(1);
  });

  it('still refuses to start on a damaged file the person writes (CATALYST_CONFIG_FILE)', async () => {
    dir = await createTempDir('own-files');
    const hostsFile = join(dir.path, 'hosts.json');
    await writeFile(hostsFile, '');
    const started = await startOnce({ ...envOf(dir.path), CATALYST_CONFIG_FILE: hostsFile }, dir.path);
    expect(started.stdout).toBe('');
    expect(started.code).not.toBe(0);
    expect(started.stderr).toMatch(/CONFIG_INVALID|hosts\.json/);
    expect(await readdir(dir.path)).not.toContainEqual(expect.stringMatching(/broken/));
  });
});
