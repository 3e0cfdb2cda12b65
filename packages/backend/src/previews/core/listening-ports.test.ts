import { describe, expect, it } from 'vitest';
import {
  chooseForwardAddress,
  forwardAddressOf,
  parseListeningPorts,
  renderTagsInput,
} from './listening-ports.ts';

describe('the listening ports script’s output', () => {
  it('reads tag, port and address lines and skips anything else', () => {
    const stdout = [
      'byte-order little',
      'run-tag-0001 5173 0100007F',
      'run-tag-0001 0 0100007F',
      'BAD TAG 80 0100007F',
      'run-tag-0002 65536 00000000',
      'run-tag-0002 8080 00000000',
      'run-tag-0002 8081 00000000000000000000000001000000',
      'run-tag-0002 8082 00000000000000000000000000000000',
      'run-tag-0002 8083 0000000000000000FFFF00000100007F',
      'run-tag-0002 8084 B80D01200000000000000000010000FE',
      'run-tag-0002 8085 0A00',
      '',
    ];
    expect(parseListeningPorts(stdout.join('\n'))).toEqual([
      { tag: 'run-tag-0001', port: 5173, address: '127.0.0.1' },
      { tag: 'run-tag-0002', port: 8080, address: '0.0.0.0' },
      { tag: 'run-tag-0002', port: 8081, address: '::1' },
      { tag: 'run-tag-0002', port: 8082, address: '::' },
      { tag: 'run-tag-0002', port: 8083, address: '::ffff:127.0.0.1' },
      { tag: 'run-tag-0002', port: 8084, address: '2001:db8::fe00:1' },
    ]);
  });

  it('reads the words of a big-endian host as they are, and nothing without a byte order', () => {
    expect(parseListeningPorts('byte-order big\nrun-tag-0001 80 7F000001\n')).toEqual([
      { tag: 'run-tag-0001', port: 80, address: '127.0.0.1' },
    ]);
    expect(parseListeningPorts('run-tag-0001 80 0100007F\n')).toEqual([]);
  });

  it('forwards to the listener’s own address, a wildcard to its family’s loopback', () => {
    expect(forwardAddressOf('0.0.0.0')).toBe('127.0.0.1');
    expect(forwardAddressOf('::')).toBe('::1');
    expect(forwardAddressOf('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(forwardAddressOf('::1')).toBe('::1');
    const listeners = [
      { tag: 'run-tag-0001', port: 80, address: '::' },
      { tag: 'run-tag-0001', port: 80, address: '::1' },
      { tag: 'run-tag-0001', port: 81, address: '10.0.0.5' },
    ];
    expect(chooseForwardAddress(listeners, 80)).toBe('::1');
    expect(chooseForwardAddress(listeners, 81)).toBe('10.0.0.5');
    expect(chooseForwardAddress(listeners, 82)).toBeUndefined();
  });
});

describe('the tags on the ports script’s stdin', () => {
  it('go as one JSON line, never as arguments, and only run tags', () => {
    expect(renderTagsInput(['abcdef12', 'idea-1234abcd'])).toBe('{"tags":"abcdef12 idea-1234abcd"}');
    expect(() => renderTagsInput(['abc def12'])).toThrow(/not a run tag/);
    expect(() => renderTagsInput(['"; rm -rf ~'])).toThrow(/not a run tag/);
  });
});
