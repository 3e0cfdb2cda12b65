import { describe, expect, it } from 'vitest';
import { createJobStderrFilter, stripMarker } from './job-stderr.ts';

const START = '@@catalyst-attach start\n';
const TRAILER = '\n@@catalyst-session-end code=0 reason=exit\n';

/** Feeds `text` in chunks of `size` bytes; what the job wrote, and the trailer. */
function filterIn(text: string, size: number) {
  const filter = createJobStderrFilter();
  const bytes = Buffer.from(text, 'utf8');
  const out: Buffer[] = [];
  let largestHeld = 0;
  let fed = 0;
  for (let at = 0; at < bytes.length; at += size) {
    const chunk = bytes.subarray(at, at + size);
    fed += chunk.length;
    const passed = filter.push(chunk);
    out.push(passed);
    largestHeld = Math.max(largestHeld, fed - Buffer.concat(out).length);
  }
  out.push(filter.flush());
  return { text: Buffer.concat(out).toString('utf8'), trailer: filter.trailer(), largestHeld };
}

describe('the session stderr filter (issue 25, item 13)', () => {
  it('passes the job’s stderr and takes the trailer, however the chunks fall', () => {
    const stream = `rc noise\n${START}warning: one\nwarning: two ✓\n${TRAILER}`;
    for (const size of [1, 2, 3, 7, 64, 4096]) {
      const { text, trailer } = filterIn(stream, size);
      expect(text).toBe('warning: one\nwarning: two ✓\n');
      expect(trailer).toEqual({ code: 0, reason: 'exit' });
    }
  });

  it('takes the trailer only as the stream’s last line: the job printing the marker’s words is its output', () => {
    const fake = '\n@@catalyst-session-end code=9 reason=cancel\n';
    const stream = `${START}before${fake}after\n`;
    for (const size of [1, 5, 4096]) {
      const { text, trailer } = filterIn(stream, size);
      expect(text).toBe(`before${fake}after\n`);
      expect(trailer).toBeUndefined();
    }
    const { text, trailer } = filterIn(`${START}before${fake}after${TRAILER}`, 3);
    expect(text).toBe(`before${fake}after`);
    expect(trailer).toEqual({ code: 0, reason: 'exit' });
  });

  it('a long last line is held back no longer than a trailer could be', () => {
    const long = 'x'.repeat(1_000_000);
    const { text, largestHeld } = filterIn(`${START}first\n${long}`, 4096);
    expect(text).toBe(`first\n${long}`);
    expect(largestHeld).toBeLessThanOrEqual(128);
  });

  it('keeps a malformed trailer as output', () => {
    const odd = '\n@@catalyst-session-end code=x reason=exit\n';
    expect(filterIn(`${START}a${odd}`, 4).text).toBe(`a${odd}`);
  });
});

describe('stripMarker', () => {
  it('drops what comes before the marker, and keeps only a marker’s length while waiting for it', () => {
    const seen: string[] = [];
    const strip = stripMarker(START, () => seen.push('seen'));
    expect(strip(Buffer.from('n'.repeat(100_000)))).toHaveLength(0);
    expect(strip(Buffer.from('noise @@catalyst-att'))).toHaveLength(0);
    expect(strip(Buffer.from('ach start\nhello')).toString()).toBe('hello');
    expect(strip(Buffer.from(' world')).toString()).toBe(' world');
    expect(seen).toEqual(['seen']);
  });
});
