import { describe, expect, it } from 'vitest';
import { parseListeningPorts } from './listening-ports.ts';

describe('the listening ports script’s output', () => {
  it('reads tag and port lines and skips anything else', () => {
    const stdout = [
      'run-tag-0001 5173',
      'run-tag-0001 0',
      'BAD TAG 80',
      'run-tag-0002 65536',
      'run-tag-0002 8080',
      '',
    ];
    expect(parseListeningPorts(stdout.join('\n'))).toEqual([
      { tag: 'run-tag-0001', port: 5173 },
      { tag: 'run-tag-0002', port: 8080 },
    ]);
  });
});
