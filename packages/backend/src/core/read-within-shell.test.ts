import { describe, expect, it } from 'vitest';
import { isCatalystError } from './catalyst-error.ts';
import { parseReadWithinOutput, renderReadWithinScript } from './read-within-shell.ts';
import { wrapForAnyLoginShell } from './shell-quote.ts';

const MARKER = 'a1b2c3d4e5f6a7b8';
const request = { root: '/home/u/ideas/idea-1/project', path: 'src/main.ts', maxBytes: 100 };

/** What the script prints: rc noise, the marker, its fields, and the marker with its last word. */
function output(noise: string, fields: readonly (string | Buffer)[], word = '0'): Buffer {
  return Buffer.concat([
    Buffer.from(`${noise}${MARKER}\0`),
    ...fields.map((field) => (typeof field === 'string' ? Buffer.from(`${field}\0`) : field)),
    Buffer.from(`${MARKER}\0${word}\0`),
  ]);
}

function parse(bytes: Buffer) {
  return parseReadWithinOutput(bytes, { code: 0, stderr: '', marker: MARKER }, request);
}

describe('parseReadWithinOutput', () => {
  it('reads a file after rc noise, its bytes kept as they are (NULs, the marker text itself)', () => {
    const data = Buffer.from(`a\0b\n${MARKER}\0c`);
    const found = parse(output('rc-noise: stdout\n', ['ok', 'file', 'src/main.ts', '42/9/1700000000', data]));
    expect(found).toEqual({
      kind: 'file',
      inside: 'src/main.ts',
      size: 9,
      modifiedMs: 1_700_000_000_000,
      data,
    });
  });

  it('lists a folder: names with newlines, find’s types, fractional times', () => {
    const found = parse(
      output('', [
        'ok',
        'dir',
        '',
        'f/5/1700000000.5/new\nline',
        'd/4096/1700000001/src',
        'p/0/1700000002/pipe',
      ]),
    );
    expect(found).toEqual({
      kind: 'directory',
      inside: '',
      entries: [
        { name: 'new\nline', kind: 'file', size: 5, modifiedMs: 1_700_000_000_500 },
        { name: 'src', kind: 'directory', size: 4096, modifiedMs: 1_700_000_001_000 },
        { name: 'pipe', kind: 'other', size: 0, modifiedMs: 1_700_000_002_000 },
      ],
    });
  });

  it('reports what is no file or folder, refusals, and errors naming the path', () => {
    expect(parse(output('', ['ok', 'other', 'package.json', 'fifo']))).toEqual({
      kind: 'other',
      inside: 'package.json',
      what: 'fifo',
    });
    expect(parse(output('', ['err', 'outside']))).toEqual({ kind: 'refused', reason: 'outside' });
    expect(parse(output('', ['ok', 'file', 'x', '1/2/3', Buffer.from('ab')], 'changed'))).toEqual({
      kind: 'refused',
      reason: 'changed',
    });
    for (const [reason, code] of [
      ['missing', 'FILE_NOT_FOUND'],
      ['denied', 'PERMISSION_DENIED'],
    ] as const) {
      try {
        parse(output('', ['err', reason]));
        expect.unreachable();
      } catch (error) {
        expect(isCatalystError(error) && { code: error.code, path: error.details['path'] }).toEqual({
          code,
          path: `${request.root}/${request.path}`,
        });
      }
    }
  });

  it('refuses output cut short (no last word) or a failed step as FILE_ERROR', () => {
    const whole = output('', ['ok', 'file', 'x', '1/2/3', Buffer.from('ab')]);
    for (const bytes of [
      whole.subarray(0, whole.length - 4),
      output('', ['ok', 'dir', ''], 'dd'),
      Buffer.alloc(0),
    ]) {
      expect(() => parse(bytes)).toThrow(expect.objectContaining({ code: 'FILE_ERROR' }));
    }
  });
});

describe('renderReadWithinScript', () => {
  it('passes the paths as they are, and refuses a bad marker or byte count', () => {
    const call = renderReadWithinScript({ root: "/r/it's", path: '$(id)', maxBytes: 5 }, MARKER);
    expect(call.args).toEqual([MARKER, "/r/it's", '$(id)', '5']);
    expect(call.script.split('\n').slice(0, 2)).toEqual([
      'cr_mark=$1 cr_root=$2 cr_rel=$3 cr_max=$4',
      `printf '%s\\0' "$cr_mark"`,
    ]);
    // Over SSH each is a word of its own after the script (quoteForAnyShell).
    expect(wrapForAnyLoginShell(call)).toMatch(/' 'catalyst-read' '[^']+' '\/r\/it'"'"'s' '\$\(id\)' '5'$/);
    expect(() => renderReadWithinScript(request, 'x; rm -rf ~')).toThrow();
    expect(() => renderReadWithinScript({ ...request, maxBytes: -1 }, MARKER)).toThrow();
  });
});
