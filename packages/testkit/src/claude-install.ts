import { chmod, copyFile, mkdir, rename, stat, writeFile, chown } from 'node:fs/promises';
import { join } from 'node:path';
import { claudeBinaryPath, claudeVersion } from './claude-cli.ts';
import type { SshdUser } from './sshd-users.ts';

/**
 * The claude CLI "installed on the VM" for the sshd test users: a copy of the devDependency's binary in a
 * world-readable place (the workspace may sit under a directory other users cannot enter), and a
 * `~/.claude/settings.json` whose `env` points the CLI at the scripted model, as a logged-in user's would point it
 * at Anthropic. Nothing reaches the CLI through its command line or the SSH environment.
 */
const SHARED_DIR = '/opt/catalyst-test';

export async function installSharedClaude(): Promise<string> {
  const source = claudeBinaryPath();
  const { size } = await stat(source);
  const dir = join(SHARED_DIR, `claude-${claudeVersion()}-${size}`);
  const target = join(dir, 'claude');
  try {
    if ((await stat(target)).size === size) return target;
  } catch {
    // not installed yet
  }
  await mkdir(dir, { recursive: true, mode: 0o755 });
  const partial = `${target}.${process.pid}.partial`;
  await copyFile(source, partial);
  await chmod(partial, 0o755);
  await rename(partial, target);
  return target;
}

export async function writeClaudeSettings(user: SshdUser, modelUrl: string): Promise<void> {
  const dir = join(user.home, '.claude');
  await mkdir(dir, { recursive: true });
  const env = {
    ANTHROPIC_BASE_URL: modelUrl,
    ANTHROPIC_API_KEY: 'sk-dummy',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    CLAUDE_CODE_MAX_RETRIES: '1',
  };
  const path = join(dir, 'settings.json');
  await writeFile(path, `${JSON.stringify({ env }, null, 2)}\n`, { mode: 0o600 });
  const owner = await stat(user.home);
  await chown(dir, owner.uid, owner.gid);
  await chown(path, owner.uid, owner.gid);
}
