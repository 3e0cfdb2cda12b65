import { describe, expect, it } from 'vitest';
import { MAX_RELAY_EVENT_BYTES, RelayEventSchema, type RelayEventDraft } from '@catalyst/protocol';
import { assistantLine, canUseToolLine, lineOf } from '../../../test/support/cli-line-fixtures.ts';
import { capRelayEvent, commonLength, relayEventBytes } from './relay-event-size.ts';
import { toRelayDrafts } from './relay-mapping.ts';

const ctx = { ideaId: 'idea-0123456789abcdef', runId: 'run-1' };
const KIB = 1024;
const MARKER = /\n\[… \d+ bytes omitted\]$/;

/** A MultiEdit whose edits each hold two 900 KiB strings (relay-mapping's 1 MiB string cap lets them all through). */
function multiEditLine(edits: number) {
  const big = (tag: string) => tag.repeat(900 * KIB);
  const input = {
    file_path: '/project/app.ts',
    edits: Array.from({ length: edits }, (_, index) => ({
      old_string: big(String(index % 10)),
      new_string: big('é'),
      replace_all: false,
    })),
    note: 'kept whole',
  };
  return assistantLine({ type: 'tool_use', id: 'toolu_big', name: 'MultiEdit', input });
}

function onlyDraft(raw: Record<string, unknown>): RelayEventDraft {
  const [draft] = toRelayDrafts(lineOf(raw), ctx);
  if (draft === undefined) throw new Error('no draft');
  return draft;
}

function expectValid(draft: RelayEventDraft): void {
  const parsed = RelayEventSchema.safeParse({ ...draft, seq: 1, ts: '2026-01-01T00:00:00.000Z' });
  expect(parsed.error).toBeUndefined();
}

describe('capRelayEvent', () => {
  it('returns an event that fits as it is, unmarked', () => {
    const draft = onlyDraft(assistantLine({ type: 'text', text: 'x'.repeat(1024 * KIB) }));
    expect(capRelayEvent(draft)).toBe(draft);
  });

  it('cuts a MultiEdit of 24 strings of 900 KiB (over 30 MiB) to the bound, marked truncated', () => {
    const draft = onlyDraft(multiEditLine(12));
    expect(relayEventBytes(draft)).toBeGreaterThan(8 * 1024 * KIB);
    const capped = capRelayEvent(draft);

    expect(relayEventBytes(capped)).toBeLessThanOrEqual(MAX_RELAY_EVENT_BYTES);
    expect(capped).toMatchObject({ type: 'claude:tool_use', toolUseId: 'toolu_big', truncated: true });
    expectValid(capped);
    if (capped.type !== 'claude:tool_use') throw new Error('not a tool_use');
    expect(capped.input).toMatchObject({ file_path: '/project/app.ts', note: 'kept whole' });
    const edits = capped.input['edits'] as { old_string: string; new_string: string; replace_all: boolean }[];
    expect(edits).toHaveLength(12);
    for (const edit of edits) {
      expect(edit.old_string).toMatch(MARKER);
      expect(edit.new_string).toMatch(MARKER);
      expect(edit.replace_all).toBe(false);
    }
    // Every long string gets the same share: nothing is dropped whole while another keeps a megabyte.
    const shares = edits.map((edit) => Buffer.byteLength(edit.old_string));
    expect(Math.max(...shares) - Math.min(...shares)).toBeLessThan(64);
  });

  it('keeps the short strings whole and cuts only the longest when that is enough', () => {
    const input = {
      small: 'a'.repeat(100 * KIB),
      large: 'b'.repeat(1000 * KIB),
      larger: 'c'.repeat(1020 * KIB),
    };
    const draft = onlyDraft(assistantLine({ type: 'tool_use', id: 't', name: 'X', input }));
    const capped = capRelayEvent(draft, 1536 * KIB);
    if (capped.type !== 'claude:tool_use') throw new Error('not a tool_use');
    expect(capped.input['small']).toBe(input.small);
    expect(capped.input['large']).toMatch(MARKER);
    expect(capped.input['larger']).toMatch(MARKER);
    expect(relayEventBytes(capped)).toBeLessThanOrEqual(1536 * KIB);
  });

  it('caps a claude:event (a can_use_tool of many large strings) and it stays a valid CLI message', () => {
    const input = Object.fromEntries(
      Array.from({ length: 10 }, (_, i) => [`field${i}`, 'z'.repeat(900 * KIB)]),
    );
    const capped = capRelayEvent(onlyDraft(canUseToolLine('Write', input)));
    expect(capped).toMatchObject({
      type: 'claude:event',
      truncated: true,
      message: { type: 'control_request' },
    });
    expect(relayEventBytes(capped)).toBeLessThanOrEqual(MAX_RELAY_EVENT_BYTES);
    expectValid(capped);
  });

  it('counts JSON escapes: a string of control characters (6 bytes each in JSON) still ends under the bound', () => {
    const draft = onlyDraft(assistantLine({ type: 'text', text: '\u0001'.repeat(1000 * KIB) }));
    expect(relayEventBytes(draft)).toBeGreaterThan(MAX_RELAY_EVENT_BYTES);
    const capped = capRelayEvent(draft);
    expect(capped).toMatchObject({ type: 'claude:text', truncated: true });
    expect(relayEventBytes(capped)).toBeLessThanOrEqual(MAX_RELAY_EVENT_BYTES);
  });

  it('cuts huge object keys too (answers keyed by a huge question text)', () => {
    const draft: RelayEventDraft = {
      ...ctx,
      type: 'claude:question_answered',
      questionId: 'q1',
      answers: { ['Q'.repeat(3 * 1024 * KIB)]: 'Yes' },
      source: 'human',
      by: 'person',
    };
    const capped = capRelayEvent(draft);
    expect(relayEventBytes(capped)).toBeLessThanOrEqual(MAX_RELAY_EVENT_BYTES);
    if (capped.type !== 'claude:question_answered') throw new Error('not an answer');
    expect(Object.values(capped.answers)).toEqual(['Yes']);
    expect(Object.keys(capped.answers)[0]).toMatch(MARKER);
  });

  it('says so in a claude:error when no cut of its strings can make it fit (too much structure)', () => {
    const input = { items: Array.from({ length: 300_000 }, () => ({ a: 1 })) };
    const draft = onlyDraft(assistantLine({ type: 'tool_use', id: 't', name: 'X', input }));
    const capped = capRelayEvent(draft);
    expect(capped).toMatchObject({
      type: 'claude:error',
      source: 'protocol',
      truncated: true,
      runId: 'run-1',
    });
    expect(capped.type === 'claude:error' && capped.text).toMatch(/claude:tool_use event of \d+ bytes/);
  });
});

describe('commonLength', () => {
  it('keeps what is shorter than its share and splits the rest equally', () => {
    expect(commonLength([10, 100, 100], 110)).toBe(50);
    expect(commonLength([10, 20], 30)).toBe(Number.POSITIVE_INFINITY);
    expect(commonLength([5, 5, 5], 0)).toBe(0);
  });
});

describe('capRelayEvent without serialising', () => {
  it('keeps exactly the drafts whose JSON fits, at the bound, whatever their strings escape to', () => {
    const texts = ['a', 'é', '😀', '\u0001', '"', '\ud800'].map((unit) => unit.repeat(1000));
    for (const text of texts) {
      const draft: RelayEventDraft = {
        ...ctx,
        type: 'claude:text',
        messageId: 'm',
        parentToolUseId: null,
        text,
      };
      const size = relayEventBytes(draft);
      for (const maxBytes of [size - 1, size, size + 1, 6 * size]) {
        const isKept = capRelayEvent(draft, maxBytes) === draft;
        expect(isKept, `${JSON.stringify(text.slice(0, 2))} in ${String(maxBytes)} bytes`).toBe(
          size <= maxBytes,
        );
      }
    }
  });
});
