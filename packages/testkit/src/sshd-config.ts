import { chmod, copyFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runTool } from './run-tool.ts';

/** sshd_config values by keyword, e.g. `{ MaxSessions: 2, ClientAliveInterval: 1 }`; they replace defaults. */
export type SshdSettings = Readonly<Record<string, string | number>>;

export interface SshdFiles {
  dir: string;
  hostKey: string;
  clientKey: string;
  authorizedKeys: string;
  pidFile: string;
  config: string;
}

export function sshdFiles(dir: string): SshdFiles {
  return {
    dir,
    hostKey: join(dir, 'host_ed25519'),
    clientKey: join(dir, 'client_ed25519'),
    authorizedKeys: join(dir, 'authorized_keys'),
    pidFile: join(dir, 'sshd.pid'),
    config: join(dir, 'sshd_config'),
  };
}

/** The kit depends on these; a test that needs another address or key needs another kit. */
const FIXED_KEYWORDS = new Set(['port', 'listenaddress', 'hostkey', 'pidfile']);

export async function generateKeys(files: SshdFiles): Promise<void> {
  await runTool('/usr/bin/ssh-keygen', [
    '-q',
    '-t',
    'ed25519',
    '-N',
    '',
    '-C',
    'catalyst-test-host',
    '-f',
    files.hostKey,
  ]);
  await runTool('/usr/bin/ssh-keygen', [
    '-q',
    '-t',
    'ed25519',
    '-N',
    '',
    '-C',
    'catalyst-test-client',
    '-f',
    files.clientKey,
  ]);
  // sshd opens AuthorizedKeysFile as the target user, so every test user must read it (field notes §0).
  await copyFile(`${files.clientKey}.pub`, files.authorizedKeys);
  await chmod(files.authorizedKeys, 0o644);
}

/** `ssh-ed25519 AAAA…`: the generated host key without its comment, as a known_hosts line wants it. */
export async function readHostPublicKey(files: SshdFiles): Promise<string> {
  const publicKey = (await readFile(`${files.hostKey}.pub`, 'utf8')).trim();
  const [type, key] = publicKey.split(' ');
  if (type !== 'ssh-ed25519' || key === undefined || !/^AAAA[A-Za-z0-9+/]+=*$/.test(key)) {
    throw new Error(`unexpected host public key: ${publicKey}`);
  }
  return `${type} ${key}`;
}

export async function writeSshdConfig(files: SshdFiles, port: number, settings: SshdSettings): Promise<void> {
  const lines = new Map<string, string>();
  const set = (keyword: string, value: string | number) =>
    lines.set(keyword.toLowerCase(), `${keyword} ${value}`);
  set('Port', port);
  set('ListenAddress', '127.0.0.1');
  set('HostKey', files.hostKey);
  set('PidFile', files.pidFile);
  set('AuthorizedKeysFile', files.authorizedKeys);
  set('PubkeyAuthentication', 'yes');
  set('PasswordAuthentication', 'no');
  set('KbdInteractiveAuthentication', 'no');
  set('PermitRootLogin', 'prohibit-password');
  // Without PAM, a `!` in the shadow file locks the account; sshd-users.ts unlocks them (field notes §0).
  set('UsePAM', 'no');
  // The files live under /tmp (mode 1777), which StrictModes refuses above the keys file (field notes §0).
  set('StrictModes', 'no');
  set('Subsystem', 'sftp internal-sftp');
  set('LogLevel', 'VERBOSE');
  for (const [keyword, value] of Object.entries(settings)) {
    checkSetting(keyword, value);
    set(keyword, value);
  }
  await writeFile(files.config, [...lines.values(), ''].join('\n'));
}

function checkSetting(keyword: string, value: string | number): void {
  if (!/^[A-Za-z]+$/.test(keyword)) throw new Error(`not an sshd_config keyword: ${JSON.stringify(keyword)}`);
  if (FIXED_KEYWORDS.has(keyword.toLowerCase()))
    throw new Error(`startSshd: ${keyword} is fixed by the test kit`);
  if (/[\r\n]/.test(String(value))) throw new Error(`startSshd: the value of ${keyword} spans lines`);
}

/** `sshd -t` reports a bad keyword or value with its line number, which beats a daemon that dies at start. */
export async function validateSshdConfig(files: SshdFiles): Promise<void> {
  await runTool('/usr/sbin/sshd', ['-t', '-f', files.config]);
}
