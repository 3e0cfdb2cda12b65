import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createStreamStripper,
  outcomeFromTrailer,
  outcomeWithoutMarker,
  parseTrailerLine,
  type StreamStripperOptions,
} from './run-markers.ts';

const TAG = 'abcdef0123456789';
const MARKER = `@@catalyst-run started tag=${TAG} pid=4242\n`;
const TRAILER = '\n@@catalyst-run ended reason=exit code=3\n';
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Feeds `input` split at `cuts` and returns what came out, plus the stripper. */
function strip(input: string, options: StreamStripperOptions, cuts: readonly number[] = []) {
  const bytes = encoder.encode(input);
  const stripper = createStreamStripper(options);
  const parts: Uint8Array[] = [];
  let from = 0;
  for (const cut of [...cuts].sort((a, b) => a - b).concat(bytes.length)) {
    parts.push(stripper.push(bytes.slice(from, cut)));
    from = cut;
  }
  parts.push(stripper.end());
  const out = Buffer.concat(parts);
  return { text: decoder.decode(out), bytes: out, stripper };
}

const stdout = { tag: TAG, stream: 'stdout' } as const;
const stderr = { tag: TAG, stream: 'stderr' } as const;

describe('createStreamStripper: the start marker', () => {
  it('drops rc-file noise before the marker and reads the wrapper pid', () => {
    const { text, stripper } = strip(`[bashrc] hello\nno newline${MARKER}{"type":"x"}\n`, stdout);
    expect(text).toBe('{"type":"x"}\n');
    expect(stripper.wrapperPid).toBe(4242);
    expect(stripper.preamble()).toBe('[bashrc] hello\nno newline');
  });

  it('finds a marker split at every possible byte', () => {
    const input = `noise\n${MARKER}line one\n`;
    for (let cut = 0; cut <= input.length; cut += 1) {
      expect(strip(input, stdout, [cut]).text, `cut at ${cut}`).toBe('line one\n');
    }
  });

  it('ignores a marker of another run and reports everything as preamble when none comes', () => {
    const other = '@@catalyst-run started tag=ffffffffffffffff pid=1\nbody\n';
    const { text, stripper } = strip(other, stdout);
    expect(text).toBe('');
    expect(stripper.hasStarted).toBe(false);
    expect(stripper.preamble()).toBe(other);
  });

  it('passes stdout chunks after the marker through as they are', () => {
    const stripper = createStreamStripper(stdout);
    stripper.push(encoder.encode(MARKER));
    const chunk = encoder.encode('x'.repeat(1000));
    expect(stripper.push(chunk)).toBe(chunk);
  });

  it('keeps a multibyte character split across chunks intact', () => {
    const input = `${MARKER}héllo → 世界\n`;
    const cuts = [MARKER.length + 2, MARKER.length + 8, MARKER.length + 10];
    expect(strip(input, stdout, cuts).text).toBe('héllo → 世界\n');
  });
});

describe('createStreamStripper: the trailer on stderr', () => {
  it('removes the trailer and parses it', () => {
    const { text, stripper } = strip(`${MARKER}warning: x\n${TRAILER}`, stderr);
    expect(text).toBe('warning: x\n');
    expect(stripper.trailer).toEqual({ reason: 'exit', code: 3 });
  });

  it('keeps stderr that lacks a final newline byte-exact', () => {
    expect(strip(`${MARKER}partial${TRAILER}`, stderr).text).toBe('partial');
  });

  it('finds the trailer split at every possible byte', () => {
    const input = `${MARKER}err one\nerr two${TRAILER}`;
    for (let cut = 0; cut <= input.length; cut += 1) {
      const result = strip(input, stderr, [cut]);
      expect(result.text, `cut at ${cut}`).toBe('err one\nerr two');
      expect(result.stripper.trailer, `cut at ${cut}`).toEqual({ reason: 'exit', code: 3 });
    }
  });

  it('keeps a trailer-like line that is not the last line', () => {
    const fake = '@@catalyst-run ended reason=cancel code=0\n';
    const { text, stripper } = strip(`${MARKER}${fake}more\n${TRAILER}`, stderr);
    expect(text).toBe(`${fake}more\n`);
    expect(stripper.trailer).toEqual({ reason: 'exit', code: 3 });
  });

  it('keeps a malformed last line and reports no trailer', () => {
    const { text, stripper } = strip(`${MARKER}x\n@@catalyst-run ended reason=bogus code=1\n`, stderr);
    expect(text).toBe('x\n@@catalyst-run ended reason=bogus code=1\n');
    expect(stripper.trailer).toBeUndefined();
  });

  it('keeps a stream that ends with newlines but no trailer (the wrapper was killed)', () => {
    expect(strip(`${MARKER}a\n\n`, stderr).text).toBe('a\n\n');
  });

  it('holds back at most one short line, whatever the chunking (property)', () => {
    const body = fc.string({ unit: 'binary', maxLength: 200 });
    fc.assert(
      fc.property(
        body,
        fc.string({ maxLength: 40 }),
        fc.array(fc.nat(400), { maxLength: 6 }),
        (text, noise, cuts) => {
          const input = `${noise}${MARKER}${text}${TRAILER}`;
          const limit = encoder.encode(input).length;
          const result = strip(
            input,
            stderr,
            cuts.map((cut) => Math.min(cut, limit)),
          );
          expect(result.bytes).toEqual(Buffer.from(encoder.encode(text)));
          expect(result.stripper.trailer).toEqual({ reason: 'exit', code: 3 });
        },
      ),
    );
  });
});

describe('trailer and outcome mapping', () => {
  const context = { argv0: 'claude', cwd: '/work/x', stderrTail: "sh: 1: cd: can't cd to /work/x\n" };

  it('parses only well-formed trailers', () => {
    expect(parseTrailerLine('@@catalyst-run ended reason=max_runtime code=137')).toEqual({
      reason: 'max_runtime',
      code: 137,
    });
    expect(parseTrailerLine('@@catalyst-run ended reason=exit code=')).toBeUndefined();
    expect(parseTrailerLine('@@catalyst-run ended reason=exit code=1 extra')).toBeUndefined();
  });

  it.each([
    ['exit', 7, { kind: 'exited', code: 7, signal: null }],
    ['cancel', 143, { kind: 'cancelled' }],
    ['lease', 137, { kind: 'lease_lost' }],
    ['max_runtime', 143, { kind: 'max_runtime' }],
    ['eof', 143, { kind: 'connection_lost' }],
    ['cwd', 86, { kind: 'start_failed', code: 'CWD_NOT_FOUND' }],
    ['not_found', 127, { kind: 'start_failed', code: 'CLI_NOT_FOUND' }],
    ['setup', 1, { kind: 'start_failed', code: 'RUN_START_FAILED' }],
  ] as const)('maps reason=%s to its outcome', (reason, code, expected) => {
    expect(outcomeFromTrailer({ reason, code }, context)).toMatchObject(expected);
  });

  it('names the directory and the shell message for a missing cwd', () => {
    const outcome = outcomeFromTrailer({ reason: 'cwd', code: 86 }, context);
    expect(outcome.kind === 'start_failed' && outcome.message).toContain("/work/x: sh: 1: cd: can't cd");
  });

  it('tells an unusable host from another failure when no marker came', () => {
    expect(outcomeWithoutMarker({ code: 127, signal: null }, 'fish: Unknown command: /bin/sh')).toEqual({
      kind: 'start_failed',
      code: 'WRAPPER_UNSUPPORTED',
      message: 'the run wrapper never started (exit code 127): fish: Unknown command: /bin/sh',
    });
    expect(outcomeWithoutMarker({ code: null, signal: 'SIGKILL' }, '')).toMatchObject({
      code: 'RUN_START_FAILED',
      message: 'the run wrapper never started (signal SIGKILL)',
    });
  });
});
