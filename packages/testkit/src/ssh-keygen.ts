import { access, constants, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runTool, type ToolResult } from './run-tool.ts';

/**
 * OpenSSH's `ssh-keygen` in a temp dir of its own: real keys, and the reference that known_hosts code is checked
 * against (`-F`, `-H`, `-lf`). The project's setup installs it (openssh-server brings openssh-client), so a missing
 * one is a broken machine: tests fail with a sentence saying so, never skip.
 */

const SSH_KEYGEN = '/usr/bin/ssh-keygen';

export interface GeneratedKey {
  readonly publicKeyPath: string;
  /** As the .pub file names it: `ssh-ed25519`, `ssh-rsa`, `ecdsa-sha2-nistp256`. */
  readonly keyType: string;
  readonly base64: string;
  readonly blob: Buffer;
  readonly comment: string;
}

export interface SshKeygenKit {
  readonly dir: string;
  generateKey(options: {
    type: 'ed25519' | 'rsa' | 'ecdsa';
    bits?: number;
    comment: string;
  }): Promise<GeneratedKey>;
  /** Runs ssh-keygen; exit codes in `acceptCodes` (e.g. 1 from `-F` for "not found") are answers, not failures. */
  keygen(args: readonly string[], acceptCodes?: readonly number[]): Promise<ToolResult>;
  writeFile(name: string, text: string): Promise<string>;
  readFile(name: string): Promise<string>;
  remove(): Promise<void>;
}

export async function createSshKeygenKit(): Promise<SshKeygenKit> {
  await access(SSH_KEYGEN, constants.X_OK).catch((error: unknown) => {
    throw new Error(
      `${SSH_KEYGEN} is missing: install openssh-client (scripts/setup does); the known_hosts tests compare with it`,
      { cause: error },
    );
  });
  const dir = await mkdtemp(join(tmpdir(), 'catalyst-keygen-'));
  const keygen = (args: readonly string[], acceptCodes: readonly number[] = []) =>
    runTool(SSH_KEYGEN, args, { acceptCodes });
  return {
    dir,
    keygen,
    async generateKey({ type, bits, comment }) {
      const path = join(dir, `${type}-${String(bits ?? 'default')}-${comment}`);
      const size = bits === undefined ? [] : ['-b', String(bits)];
      await keygen(['-q', '-t', type, ...size, '-N', '', '-C', comment, '-f', path]);
      const [keyType, base64] = (await readFile(`${path}.pub`, 'utf8')).trim().split(' ');
      if (keyType === undefined || base64 === undefined)
        throw new Error(`unexpected public key in ${path}.pub`);
      return { publicKeyPath: `${path}.pub`, keyType, base64, blob: Buffer.from(base64, 'base64'), comment };
    },
    async writeFile(name, text) {
      await writeFile(join(dir, name), text);
      return join(dir, name);
    },
    readFile: (name) => readFile(join(dir, name), 'utf8'),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/**
 * The fingerprint of a known_hosts line (or a `.pub` key) as OpenSSH itself computes it (`ssh-keygen -lf`): what a
 * person reads on the VM's console, and the reference Catalyst's own fingerprints are checked against.
 */
export async function opensshFingerprint(knownHostsLine: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'catalyst-fingerprint-'));
  try {
    const file = join(dir, 'key');
    await writeFile(file, `${knownHostsLine}\n`);
    const { stdout } = await runTool(SSH_KEYGEN, ['-lf', file]);
    const fingerprint = /SHA256:[A-Za-z0-9+/]+/.exec(stdout)?.[0];
    if (fingerprint === undefined) throw new Error(`unexpected ssh-keygen output: ${stdout}`);
    return fingerprint;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
