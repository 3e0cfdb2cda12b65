import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSshKeygenKit, type GeneratedKey, type SshKeygenKit } from '@catalyst/testkit';
import { orderHostKeyAlgorithms } from './host-key-algorithms.ts';
import { fingerprintOf } from './host-key-fingerprint.ts';
import { parseKnownHosts, renderKnownHostsLine, type KnownHosts } from './known-hosts-file.ts';
import { hashHostName } from './known-hosts-hash.ts';
import {
  checkHostKey,
  computeKnownHostsName,
  findKnownHostsEntries,
  listKnownKeyTypes,
} from './known-hosts.ts';

// Lookups are checked against `ssh-keygen -l -F name -f file` (with -l it parses keys as ssh does, so a broken
// key is not "found"); verdicts follow hostfile.c check_hostkeys_by_key_or_type.

let kit: SshKeygenKit;
let a: GeneratedKey;
let b: GeneratedKey;
let rsa: GeneratedKey;
let ecdsa: GeneratedKey;

const line = (key: GeneratedKey) => `${key.keyType} ${key.base64}`;

function trickyFile(): string {
  return [
    '# patterns, negation, several names per line, markers',
    `vm.example.com,alias1,[vm.example.com]:2200 ${line(a)}  the vm`,
    `*.example.com,!bad.example.com ${line(rsa)}`,
    `web?.example.com ${line(ecdsa)}`,
    `@revoked * ${line(b)}`,
    `@cert-authority *.corp ${line(a)}`,
    // The marker ends at the line's first space (check_markers), so this line is invalid for OpenSSH.
    `@revoked\t* ${line(a)} comment`,
    `[*.example.com]:22?? ${line(ecdsa)}`,
    `!vm.example.com,other.example.com ${line(b)}`,
    `VM.UPPER.example.com ${line(b)}`,
    `${hashHostName('hashed.example.com', Buffer.alloc(20, 5))} ${line(ecdsa)}`,
    `broken.example.com ${a.keyType} ${a.base64.slice(0, -8)}`,
    `\t@cert-authority\t*.corp\t${a.keyType}\t${a.base64}`,
    '',
  ].join('\n');
}

const LOOKUPS = [
  'vm.example.com',
  'alias1',
  '[vm.example.com]:2200',
  'bad.example.com',
  'web1.example.com',
  'web12.example.com',
  '[web1.example.com]:2201',
  '[web1.example.com]:220',
  'other.example.com',
  'vm.upper.example.com',
  'hashed.example.com',
  'broken.example.com',
  'x.corp',
  'nothing.test',
];

/** `# Host NAME found: line N [CA|REVOKED]` lines as `N marker`. */
async function keygenFinds(path: string, name: string): Promise<string[]> {
  const { stdout } = await kit.keygen(['-l', '-F', name, '-f', path], [1]);
  const markers: Record<string, string> = { CA: 'cert-authority', REVOKED: 'revoked', '': 'none' };
  return [...stdout.matchAll(/^# Host .* found: line (\d+) ?(\S*)$/gm)].map(
    ([, number, marker]) => `${number ?? ''} ${markers[marker ?? ''] ?? '?'}`,
  );
}

function ourFinds(knownHosts: KnownHosts, name: string): string[] {
  return findKnownHostsEntries(knownHosts, name).map((entry) => `${entry.line} ${entry.marker}`);
}

async function expectSameFinds(fileName: string, text: string): Promise<void> {
  const path = await kit.writeFile(fileName, text);
  const knownHosts = parseKnownHosts([{ fileName, text }]);
  const theirs = await Promise.all(LOOKUPS.map((name) => keygenFinds(path, name)));
  expect(LOOKUPS.map((name) => [name, ourFinds(knownHosts, name)])).toEqual(
    LOOKUPS.map((name, index) => [name, theirs[index]]),
  );
}

beforeAll(async () => {
  kit = await createSshKeygenKit();
  [a, b, rsa, ecdsa] = await Promise.all([
    kit.generateKey({ type: 'ed25519', comment: 'a' }),
    kit.generateKey({ type: 'ed25519', comment: 'b' }),
    kit.generateKey({ type: 'rsa', bits: 2048, comment: 'rsa' }),
    kit.generateKey({ type: 'ecdsa', bits: 256, comment: 'ecdsa' }),
  ]);
});

afterAll(async () => {
  await kit.remove();
});

describe('computeKnownHostsName', () => {
  it('is the lowercased host for port 22, [host]:port otherwise, and HostKeyAlias alone when set', () => {
    expect(computeKnownHostsName({ hostName: 'VM.Example.com', port: 22 })).toBe('vm.example.com');
    expect(computeKnownHostsName({ hostName: 'VM.Example.com', port: 2200 })).toBe('[vm.example.com]:2200');
    expect(computeKnownHostsName({ hostName: '10.0.0.7', port: 0 })).toBe('10.0.0.7');
    expect(computeKnownHostsName({ hostName: 'vm', port: 2200, hostKeyAlias: 'My-VM' })).toBe('my-vm');
    expect(computeKnownHostsName({ hostName: 'vm', port: 2200, hostKeyAlias: undefined })).toBe('[vm]:2200');
  });
});

describe('findKnownHostsEntries, against ssh-keygen -F', () => {
  it('finds what ssh-keygen finds in a file of patterns, negations, name lists and markers', async () => {
    await expectSameFinds('tricky', trickyFile());
  });

  it('finds what ssh-keygen finds once ssh-keygen -H hashed that file', async () => {
    // ssh-keygen -H refuses to rewrite a file with an invalid line, so the one with the bad marker goes.
    const valid = trickyFile()
      .split('\n')
      .filter((text) => !text.startsWith('@revoked\t'));
    const path = await kit.writeFile('hashed', valid.join('\n'));
    await kit.keygen(['-H', '-f', path]);
    const hashed = await kit.readFile('hashed');
    expect(hashed).toContain('|1|');
    await expectSameFinds('hashed', hashed);
  });

  it('finds a hashed [host]:port line from a host spelled in another case', async () => {
    const path = await kit.writeFile('port', `[vm.example.com]:2200 ${line(a)}\n`);
    await kit.keygen(['-H', '-f', path]);
    const knownHosts = parseKnownHosts([{ fileName: 'port', text: await kit.readFile('port') }]);
    const name = computeKnownHostsName({ hostName: 'VM.Example.COM', port: 2200 });
    expect(findKnownHostsEntries(knownHosts, name).map((entry) => entry.line)).toEqual([1]);
    expect(findKnownHostsEntries(knownHosts, 'vm.example.com')).toEqual([]);
  });
});

describe('checkHostKey', () => {
  const where = (key: GeneratedKey, file: string, at: number) => ({
    file,
    line: at,
    keyType: key.keyType,
    fingerprint: fingerprintOf(key.blob),
  });

  it('says known, revoked, changed or unknown as ssh would', () => {
    const knownHosts = parseKnownHosts([{ fileName: 'user', text: trickyFile() }]);
    const check = (name: string, key: GeneratedKey) =>
      checkHostKey(knownHosts, { name, presented: key.blob });
    expect(check('vm.example.com', a)).toEqual({ status: 'known', key: where(a, 'user', 2) });
    expect(check('web1.example.com', ecdsa)).toEqual({ status: 'known', key: where(ecdsa, 'user', 4) });
    // @revoked * covers every name, and wins even where the key is also listed as known.
    expect(check('other.example.com', b)).toEqual({ status: 'revoked', key: where(b, 'user', 5) });
    expect(check('vm.example.com', ecdsa)).toEqual({
      status: 'changed',
      known: [where(a, 'user', 2), where(rsa, 'user', 3)],
    });
    expect(check('nothing.test', a)).toEqual({ status: 'unknown', certificateAuthorities: [] });
  });

  it('never takes a plain key as known from @cert-authority lines, and says the name has only those', () => {
    const knownHosts = parseKnownHosts([{ fileName: 'user', text: trickyFile() }]);
    expect(checkHostKey(knownHosts, { name: 'x.corp', presented: a.blob })).toEqual({
      status: 'unknown',
      certificateAuthorities: [where(a, 'user', 6), where(a, 'user', 13)],
    });
  });

  it('reads the user files, then the global ones: any equal key is known, any revoked one refused', () => {
    const knownHosts = parseKnownHosts([
      { fileName: 'user', text: `host1 ${line(a)}\n` },
      { fileName: 'global', text: `host1 ${line(ecdsa)}\n@revoked host1 ${line(rsa)}\n` },
    ]);
    const check = (key: GeneratedKey) => checkHostKey(knownHosts, { name: 'host1', presented: key.blob });
    expect(check(ecdsa)).toEqual({ status: 'known', key: where(ecdsa, 'global', 1) });
    expect(check(rsa)).toEqual({ status: 'revoked', key: where(rsa, 'global', 2) });
    expect(check(b)).toEqual({ status: 'changed', known: [where(a, 'user', 1), where(ecdsa, 'global', 1)] });
  });

  it('knows a key from the line renderKnownHostsLine wrote, as ssh-keygen -F finds it', async () => {
    const name = computeKnownHostsName({ hostName: 'New.Example.com', port: 2222 });
    const text = `${renderKnownHostsLine({ name, blob: rsa.blob })}\n`;
    const path = await kit.writeFile('catalyst_known_hosts', text);
    expect(await keygenFinds(path, '[new.example.com]:2222')).toEqual(['1 none']);
    const knownHosts = parseKnownHosts([{ fileName: 'catalyst', text }]);
    expect(checkHostKey(knownHosts, { name, presented: rsa.blob }).status).toBe('known');
  });
});

describe('listKnownKeyTypes and orderHostKeyAlgorithms', () => {
  it('put the types known for the name first, RSA as its SHA-2 signatures, then the others', () => {
    const knownHosts = parseKnownHosts([{ fileName: 'user', text: trickyFile() }]);
    const types = listKnownKeyTypes(knownHosts, 'vm.example.com');
    expect(types).toEqual(['ssh-ed25519', 'ssh-rsa']);
    expect(orderHostKeyAlgorithms(types)).toEqual([
      'ssh-ed25519',
      'rsa-sha2-512',
      'rsa-sha2-256',
      'ecdsa-sha2-nistp256',
      'ecdsa-sha2-nistp384',
      'ecdsa-sha2-nistp521',
    ]);
    expect(listKnownKeyTypes(knownHosts, 'x.corp')).toEqual([]);
    expect(orderHostKeyAlgorithms(['ecdsa-sha2-nistp384', 'ssh-dss'])[0]).toBe('ecdsa-sha2-nistp384');
  });
});
