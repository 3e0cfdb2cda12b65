import { describe, expect, it } from 'vitest';
import { isMarkerShape, markerText, parseMarkerLine, VM_MARKERS } from './vm-markers.ts';
import { VM_SCRIPTS } from './vm-scripts.generated.ts';

describe('the markers of the VM scripts', () => {
  it('are each declared once, and every one declared is printed by a script (a rename cannot drift)', () => {
    // The scripts as a host runs them: comments left out, the lib/ fragments included.
    const printed = new Set(
      Object.values(VM_SCRIPTS).flatMap((script) =>
        [...script.matchAll(/@@([A-Za-z][A-Za-z0-9-]*)/g)].map((match) => match[1]),
      ),
    );
    const declared = Object.values(VM_MARKERS);
    expect(new Set(declared).size).toBe(declared.length);
    expect([...printed].sort()).toEqual([...declared].sort());
  });
});

describe('parseMarkerLine', () => {
  it('reads a value marker, the whole rest of the line', () => {
    expect(parseMarkerLine('@@PATH=/usr/bin:/my dir/bin\n')).toEqual({
      name: 'PATH',
      value: '/usr/bin:/my dir/bin',
      words: [],
      fields: new Map(),
    });
    expect(parseMarkerLine('@@FAIL=')).toMatchObject({ name: 'FAIL', value: '' });
  });

  it('reads words and key=value fields in order', () => {
    const line = parseMarkerLine('@@catalyst-run started tag=abcdef0123456789 pid=42');
    expect(line).toEqual({
      name: 'catalyst-run',
      words: ['started'],
      fields: new Map([
        ['tag', 'abcdef0123456789'],
        ['pid', '42'],
      ]),
    });
    expect(isMarkerShape(line, VM_MARKERS.run, { words: ['started'], keys: ['tag', 'pid'] })).toBe(true);
    expect(isMarkerShape(line, VM_MARKERS.run, { words: ['started'], keys: ['pid', 'tag'] })).toBe(false);
    expect(isMarkerShape(line, VM_MARKERS.run, { words: ['ended'], keys: ['tag', 'pid'] })).toBe(false);
    expect(parseMarkerLine('@@catalyst-attach busy 12')).toMatchObject({ words: ['busy', '12'] });
    expect(parseMarkerLine('@@STAT\n')).toEqual({ name: 'STAT', words: [], fields: new Map() });
  });

  it('refuses what is no marker of ours', () => {
    for (const line of [
      'noise @@STAT',
      '@@UNKNOWN=1',
      '@@catalyst-run  ended',
      '@@catalyst-run ended\nmore',
      '@@catalyst-runs started',
      '@@',
    ]) {
      expect(parseMarkerLine(line)).toBeUndefined();
    }
  });

  it("writes a marker's head as the scripts print it", () => {
    expect(markerText(VM_MARKERS.attach, 'start')).toBe('@@catalyst-attach start');
    expect(markerText(VM_MARKERS.stat)).toBe('@@STAT');
  });
});
