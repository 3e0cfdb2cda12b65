import { describe, expect, it } from 'vitest';
import { captureCatalystError } from '../../../core/capture-error.ts';
import { parseKnownHosts, renderKnownHostsLine } from './known-hosts-file.ts';

// Two real ed25519 keys (host-key-pin.test.ts); known-hosts.test.ts reads generated ones against ssh-keygen.
const KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIMGa4OtGleqrET8eznCgDjphZt625Bb8Uva8HFlMu8hH';
const OTHER = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAN+IbcPjC0IRHSFa50LhwyIEyZf9T7MT6o40J8hJ4YQ';
const SALT = Buffer.alloc(20, 1).toString('base64');

function parseOne(text: string) {
  return parseKnownHosts([{ fileName: 'kh', text }]);
}

describe('parseKnownHosts', () => {
  it('reads markers, pattern lists, hashed names and comments, skipping blank and # lines', () => {
    const text = [
      '# a comment',
      '',
      `  vm.example.com,[vm.example.com]:2200  ${KEY}  my vm, rebuilt in May`,
      // No space on the line, so the tab ends the marker (a space further on would not, see below).
      `@revoked\t*\t${OTHER.replace(' ', '\t')}`,
      `@cert-authority *.corp,!bad.corp ${KEY}`,
      `|1|${SALT}|${SALT} ${OTHER}`,
    ].join('\n');
    const { entries, problems } = parseOne(text);
    expect(problems).toEqual([]);
    expect(entries.map(({ line, marker, names, comment }) => ({ line, marker, names, comment }))).toEqual([
      {
        line: 3,
        marker: 'none',
        names: { kind: 'patterns', patterns: 'vm.example.com,[vm.example.com]:2200' },
        comment: 'my vm, rebuilt in May',
      },
      { line: 4, marker: 'revoked', names: { kind: 'patterns', patterns: '*' }, comment: '' },
      {
        line: 5,
        marker: 'cert-authority',
        names: { kind: 'patterns', patterns: '*.corp,!bad.corp' },
        comment: '',
      },
      {
        line: 6,
        marker: 'none',
        names: { kind: 'hashed', hashed: { salt: Buffer.alloc(20, 1), text: `|1|${SALT}|${SALT}` } },
        comment: '',
      },
    ]);
    expect(entries[0]?.keyType).toBe('ssh-ed25519');
    expect(entries[0]?.blob.equals(Buffer.from(KEY.split(' ')[1] ?? '', 'base64'))).toBe(true);
  });

  it('skips every malformed line but reports its file, line and why, and keeps reading', () => {
    const lines = [
      `@revoked @revoked * ${KEY}`,
      `@Revoked * ${KEY}`,
      `@ * ${KEY}`,
      '@revoked',
      // check_markers ends the marker at the line's first space, here the one before the comment.
      `@revoked\t* ${KEY} comment`,
      'lonely.host',
      'host # a comment where the key should be',
      'host ssh-ed25519',
      'host ssh-ed25519 not*base64',
      `host ecdsa-sha2-nistp256 ${KEY.split(' ')[1] ?? ''}`,
      'host ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIMGa4OtGleqrET8eznCgDjphZt625Bb8Uva8HF',
      `|1|short|${SALT} ${KEY}`,
      `host ${KEY}`,
    ];
    const { entries, problems } = parseKnownHosts([
      { fileName: 'first', text: `${KEY.replace('ssh', 'x ssh')}\n` },
      { fileName: 'second', text: lines.join('\n') },
    ]);
    expect(entries.map((entry) => `${entry.file}:${entry.line}`)).toEqual(['first:1', 'second:13']);
    expect(problems.map((problem) => `${problem.file}:${problem.line}: ${problem.problem}`)).toEqual([
      'second:1: only one marker is allowed on a line',
      'second:2: "@Revoked" is not @cert-authority or @revoked',
      'second:3: "@" is not @cert-authority or @revoked',
      'second:4: "@revoked" is not @cert-authority or @revoked',
      `second:5: "@revoked\\t*" is not @cert-authority or @revoked`,
      'second:6: the line ends before the key type',
      'second:7: the line ends before the key type',
      'second:8: the ssh-ed25519 key has no base64 part',
      'second:9: the key is not base64',
      'second:10: the line says ecdsa-sha2-nistp256 but the key is ssh-ed25519',
      'second:11: the ssh-ed25519 key is truncated or malformed',
      'second:12: the salt and hash of a hashed name must each be 20 bytes of base64',
    ]);
  });

  it('reads CRLF files and a last line without a newline', () => {
    const { entries, problems } = parseOne(`a ${KEY}\r\nb ${OTHER} note\r\nc ${KEY}`);
    expect(problems).toEqual([]);
    expect(entries.map((entry) => [entry.line, entry.comment])).toEqual([
      [1, ''],
      [2, 'note'],
      [3, ''],
    ]);
  });
});

describe('renderKnownHostsLine', () => {
  const blob = Buffer.from(KEY.split(' ')[1] ?? '', 'base64');

  it('writes name, type and base64, which parse back to the same key', () => {
    const line = renderKnownHostsLine({ name: '[vm.example.com]:2200', blob });
    expect(line).toBe(`[vm.example.com]:2200 ${KEY}`);
    const [entry] = parseOne(line).entries;
    expect(entry?.blob.equals(blob)).toBe(true);
  });

  it('refuses a name OpenSSH would read as something else, and a blob that is not a key', () => {
    for (const name of ['a,b', '*.corp', '!x', '|1|x', '@revoked', '#x', 'a b', '']) {
      expect(captureCatalystError(() => renderKnownHostsLine({ name, blob })).code).toBe('INVALID_ARGUMENT');
    }
    expect(
      captureCatalystError(() => renderKnownHostsLine({ name: 'vm', blob: blob.subarray(1) })).code,
    ).toBe('INVALID_ARGUMENT');
  });
});
