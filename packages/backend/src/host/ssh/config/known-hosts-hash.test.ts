import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSshKeygenKit, type SshKeygenKit } from '@catalyst/testkit';
import { parseKnownHosts } from './known-hosts-file.ts';
import { doesHashedNameMatch, hashHostName, parseHashedName, type HashedName } from './known-hosts-hash.ts';

let kit: SshKeygenKit;
let hashed: HashedName[];

// `ssh-keygen -H` writes one hashed line per name of a comma list, lowercased, in the `[host]:port` form.
const NAMES = ['vm.example.com', '10.0.0.7', '[vm.example.com]:2200', 'upper.example.com'];

beforeAll(async () => {
  kit = await createSshKeygenKit();
  const key = await kit.generateKey({ type: 'ed25519', comment: 'hash' });
  const plain = `vm.example.com,10.0.0.7 ${key.keyType} ${key.base64}
[vm.example.com]:2200 ${key.keyType} ${key.base64}
Upper.Example.COM ${key.keyType} ${key.base64}
`;
  await kit.writeFile('known_hosts', plain);
  await kit.keygen(['-H', '-f', `${kit.dir}/known_hosts`]);
  const text = await kit.readFile('known_hosts');
  const { entries, problems } = parseKnownHosts([{ fileName: 'known_hosts', text }]);
  expect(problems).toEqual([]);
  hashed = entries.map((entry) => {
    if (entry.names.kind !== 'hashed') throw new Error(`line ${entry.line} is not hashed`);
    return entry.names.hashed;
  });
});

afterAll(async () => {
  await kit.remove();
});

describe('hashed names', () => {
  it('match the names ssh-keygen -H hashed, each only its own, case included', () => {
    expect(hashed).toHaveLength(NAMES.length);
    hashed.forEach((entry, index) => {
      const matches = NAMES.filter((name) => doesHashedNameMatch(entry, name));
      expect(matches).toEqual([NAMES[index]]);
    });
    // Hashes are case-sensitive: ssh lowercases the name before hashing it (computeKnownHostsName).
    expect(hashed.some((entry) => doesHashedNameMatch(entry, '[VM.example.com]:2200'))).toBe(false);
    expect(hashed.some((entry) => doesHashedNameMatch(entry, 'Upper.Example.COM'))).toBe(false);
  });

  it('hash with the same salt to the very text ssh-keygen wrote', () => {
    hashed.forEach((entry, index) => {
      expect(hashHostName(NAMES[index] ?? '', entry.salt)).toBe(entry.text);
    });
  });

  it('say why a hashed name cannot match', () => {
    const salt = Buffer.alloc(20, 7).toString('base64');
    const digest = Buffer.alloc(20, 9).toString('base64');
    const cases: [string, RegExp][] = [
      [`|2|${salt}|${digest}`, /must start with \|1\|/],
      [`|1|${salt}`, /\|1\|salt\|hash/],
      [`|1|${salt}|${digest}|x`, /\|1\|salt\|hash/],
      [`|1|${Buffer.alloc(16).toString('base64')}|${digest}`, /each be 20 bytes/],
      [`|1|${salt}|not*base64`, /each be 20 bytes/],
      [`|1|${salt.replace('=', '')}|${digest}`, /not in the base64 form ssh-keygen writes/],
    ];
    for (const [text, problem] of cases) expect(parseHashedName(text)).toMatch(problem);
    expect(parseHashedName(`|1|${salt}|${digest}`)).toEqual({
      salt: Buffer.alloc(20, 7),
      text: `|1|${salt}|${digest}`,
    });
  });
});
