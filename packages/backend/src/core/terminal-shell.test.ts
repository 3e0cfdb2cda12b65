import { describe, expect, it } from 'vitest';
import { findTerminalMarker, MAX_BEFORE_MARKER_BYTES, renderTerminalShell } from './terminal-shell.ts';

describe('findTerminalMarker', () => {
  it('finds the tty and hands on the bytes after the marker line', () => {
    const found = findTerminalMarker(Buffer.from('motd\r\n@@catalyst-terminal /dev/pts/3\r\n$ '));
    expect(found).toEqual({ found: true, tty: '/dev/pts/3', rest: Buffer.from('$ ') });
  });

  it('waits for the end of the marker line', () => {
    expect(findTerminalMarker(Buffer.from('@@catalyst-terminal /dev/pt'))).toEqual({
      found: false,
      isTooLong: false,
    });
  });

  it('gives up on too much before the marker', () => {
    const noise = Buffer.alloc(MAX_BEFORE_MARKER_BYTES + 1, 'x');
    expect(findTerminalMarker(noise)).toEqual({ found: false, isTooLong: true });
  });
});

describe('renderTerminalShell', () => {
  it('passes the window and the folder as arguments, never the run tag', () => {
    const call = renderTerminalShell({ cwd: '/home/u/ideas/x/project', cols: 80, rows: 24 });
    expect(call.args).toEqual(['80', '24', '/home/u/ideas/x/project']);
    expect(call.script).toContain('IFS= read -r cr_tag');
  });
});
