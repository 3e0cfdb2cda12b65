import { describe, expect, it } from 'vitest';
import {
  relayEvent,
  started,
  text,
  textDelta,
  textReset,
  toolResult,
  toolUse,
} from '../../test/support/transcript-fixtures.ts';
import { buildItems, type TranscriptItem } from './transcript-items.ts';
import { applyFrame, applyFrames, emptyTranscript } from './transcript-state.ts';
import { summarize } from './transcript-summary.ts';

const seqsOf = (state: { events: readonly { seq: number }[] }) => state.events.map((event) => event.seq);
const keysOf = (items: TranscriptItem[]) => items.map((item) => item.key);

describe('applyFrames: ordering and duplicates', () => {
  const events = [1, 2, 3, 4, 5, 6, 7].map((seq) => text(seq, 'run-1', `msg-${seq}`, `text ${seq}`));
  const at = (seq: number) => events[seq - 1] ?? expect.unreachable();

  it('keeps each event once, in seq order, whatever order and repetition they arrive in', () => {
    const state = applyFrames(emptyTranscript, [at(3), at(1), at(3), at(2), at(1)]);
    expect(seqsOf(state)).toEqual([1, 2, 3]);
    expect(state.lastSeq).toBe(3);
  });

  it('merges a replay overlapping live events into the middle of the list', () => {
    const live = applyFrames(emptyTranscript, [at(1), at(2), at(5), at(6)]);
    const replayed = applyFrames(live, [at(4), at(2), at(3), at(7), at(5)]);
    expect(seqsOf(replayed)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(replayed.lastSeq).toBe(7);
  });

  it('gives the same result one frame at a time as in one batch', () => {
    const order = [5, 2, 7, 2, 1, 6, 3, 4, 7];
    const oneByOne = order.reduce((state, seq) => applyFrame(state, at(seq)), emptyTranscript);
    expect(seqsOf(oneByOne)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('returns the same state for a duplicate, so nothing re-renders', () => {
    const state = applyFrames(emptyTranscript, [at(1), at(2)]);
    expect(applyFrame(state, at(1))).toBe(state);
    expect(applyFrames(state, [at(2), at(1)])).toBe(state);
  });

  it('keeps the first copy of a seq it already holds', () => {
    const state = applyFrame(emptyTranscript, at(1));
    const impostor = text(1, 'run-1', 'msg-1', 'something else');
    expect(applyFrame(state, impostor).events[0]).toBe(at(1));
  });
});

describe('applyFrames: events made again after a restart', () => {
  const from = (seq: number, line: number, words: string) => ({
    ...text(seq, 'run-1', `msg-${String(line)}`, words),
    origin: { line, part: 0 },
  });

  it('shows an event once when a restarted Catalyst makes it again from the same place', () => {
    const shown = applyFrames(emptyTranscript, [from(5, 2, 'two'), from(6, 3, 'three')]);
    // Seq 6 never reached the disk before the kill: the next Catalyst reads line 3 again (seq 40), then goes on.
    const after = applyFrames(shown, [from(40, 3, 'three'), from(41, 4, 'four')]);
    expect(seqsOf(after)).toEqual([5, 6, 41]);
    expect(applyFrame(after, from(40, 3, 'three'))).toBe(after);
  });

  it('counts an event made again toward lastSeq: a replay that ends with one has caught up', () => {
    const shown = applyFrames(emptyTranscript, [from(5, 2, 'two'), from(6, 3, 'three')]);
    const replayed = applyFrame(shown, from(10_006, 3, 'three'));
    expect(seqsOf(replayed)).toEqual([5, 6]);
    expect(replayed.lastSeq).toBe(10_006);
    expect(applyFrame(replayed, from(10_006, 3, 'three'))).toBe(replayed);
  });

  it('keeps an event from an earlier place that arrives late (a replay overlapping the live stream)', () => {
    const live = applyFrames(emptyTranscript, [from(1, 1, 'one'), from(3, 3, 'three')]);
    expect(seqsOf(applyFrame(live, from(2, 2, 'two')))).toEqual([1, 2, 3]);
  });

  it('tells runs apart: the same place in another run is another event', () => {
    const first = applyFrame(emptyTranscript, from(1, 1, 'one'));
    const other = { ...text(2, 'run-2', 'msg-x', 'other'), origin: { line: 1, part: 0 } };
    expect(seqsOf(applyFrame(first, other))).toEqual([1, 2]);
  });
});

describe('applyFrames: drafts', () => {
  const run = started(1, 'run-1', 'hi');

  it('joins deltas per run, message and content block', () => {
    const state = applyFrames(emptyTranscript, [
      run,
      textDelta('run-1', 'msg-a', 'Hel'),
      textDelta('run-1', 'msg-a', 'lo', { index: 0 }),
      textDelta('run-1', 'msg-a', 'second', { index: 1 }),
      textDelta('run-1', 'msg-b', 'other'),
    ]);
    expect(state.drafts.map((draft) => [draft.messageId, draft.index, draft.text])).toEqual([
      ['msg-a', 0, 'Hello'],
      ['msg-a', 1, 'second'],
      ['msg-b', 0, 'other'],
    ]);
  });

  it('drops the drafts of a message when its complete text arrives, and only those', () => {
    const streaming = applyFrames(emptyTranscript, [
      run,
      textDelta('run-1', 'msg-a', 'Hel'),
      textDelta('run-1', 'msg-b', 'Wor'),
    ]);
    const settled = applyFrame(streaming, text(2, 'run-1', 'msg-a', 'Hello'));
    expect(settled.drafts.map((draft) => draft.messageId)).toEqual(['msg-b']);
  });

  it('drops the partial text of a run on claude:text_reset', () => {
    const streaming = applyFrames(emptyTranscript, [
      run,
      started(2, 'run-2', 'other idea run'),
      textDelta('run-1', 'msg-a', 'abandoned'),
      textDelta('run-2', 'msg-z', 'kept'),
    ]);
    const reset = applyFrame(streaming, textReset('run-1'));
    expect(reset.drafts.map((draft) => draft.text)).toEqual(['kept']);
    expect(reset.events).toBe(streaming.events);
    expect(applyFrame(reset, textReset('run-1'))).toBe(reset);
  });

  it('drops the drafts of a run when it ends, and ignores its late deltas', () => {
    const streaming = applyFrames(emptyTranscript, [run, textDelta('run-1', 'msg-a', 'partial')]);
    const ended = applyFrame(
      streaming,
      relayEvent(2, { type: 'run:ended', runId: 'run-1', outcome: 'cancelled' }),
    );
    expect(ended.drafts).toEqual([]);
    expect(applyFrame(ended, textDelta('run-1', 'msg-a', 'late'))).toBe(ended);
    const inOneBatch = applyFrames(emptyTranscript, [
      run,
      relayEvent(2, { type: 'run:ended', runId: 'run-1', outcome: 'cancelled' }),
      textDelta('run-1', 'msg-a', 'late'),
    ]);
    expect(inOneBatch.drafts).toEqual([]);
  });
});

describe('buildItems', () => {
  it('pairs a tool result with its call by toolUseId, even with other events between', () => {
    const state = applyFrames(emptyTranscript, [
      started(1, 'run-1', 'go'),
      toolUse(2, 'run-1', 'tu-1', 'Bash', { command: 'ls' }),
      toolUse(3, 'run-1', 'tu-2', 'Read', { file_path: '/a' }),
      toolResult(4, 'run-1', 'tu-2', 'file a'),
      toolResult(5, 'run-1', 'tu-1', 'a\nb'),
    ]);
    const tools = buildItems(state).filter((item) => item.kind === 'tool');
    expect(tools.map((item) => [item.use?.name, item.result?.content])).toEqual([
      ['Bash', 'a\nb'],
      ['Read', 'file a'],
    ]);
  });

  it('places a draft after its run’s latest event, keyed as the text that will replace it', () => {
    const base = applyFrames(emptyTranscript, [
      started(1, 'run-1', 'go'),
      text(2, 'run-1', 'msg-a', 'first block'),
      toolUse(3, 'run-1', 'tu-1', 'Bash', { command: 'ls' }),
      relayEvent(4, { type: 'idea:status', status: 'chatting' }),
    ]);
    const streaming = applyFrame(base, textDelta('run-1', 'msg-a', 'second', { index: 2 }));
    const items = buildItems(streaming);
    expect(items.map((item) => item.kind)).toEqual(['user', 'text', 'tool', 'text']);
    const draft = items[3];
    expect(draft).toMatchObject({ kind: 'text', text: 'second', isStreaming: true });

    const settled = applyFrame(streaming, text(5, 'run-1', 'msg-a', 'second block'));
    const last = buildItems(settled).at(-1);
    expect(last).toMatchObject({ kind: 'text', text: 'second block', isStreaming: false });
    expect(last?.key).toBe(draft?.key);
    expect(new Set(keysOf(buildItems(settled))).size).toBe(buildItems(settled).length);
  });

  it('attaches answers and closings to their question and permission', () => {
    const state = applyFrames(emptyTranscript, [
      started(1, 'run-1', 'go'),
      relayEvent(2, {
        type: 'claude:question',
        runId: 'run-1',
        questionId: 'q-1',
        askedAt: new Date().toISOString(),
        questions: [{ question: 'Which?', header: 'Pick', options: [], multiSelect: false }],
      }),
      relayEvent(3, {
        type: 'claude:permission_request',
        runId: 'run-1',
        requestId: 'p-1',
        toolName: 'Bash',
        input: { command: 'rm -rf build' },
      }),
      relayEvent(4, {
        type: 'claude:question_answered',
        runId: 'run-1',
        questionId: 'q-1',
        answers: { 'Which?': 'A' },
        source: 'human',
        by: 'person',
      }),
      relayEvent(5, {
        type: 'claude:question_closed',
        runId: 'run-1',
        questionId: 'q-1',
        reason: 'answered',
      }),
      relayEvent(6, { type: 'claude:permission_closed', runId: 'run-1', requestId: 'p-1', reason: 'denied' }),
    ]);
    const items = buildItems(state);
    expect(items.map((item) => item.kind)).toEqual(['user', 'question', 'permission']);
    expect(items[1]).toMatchObject({
      answered: { answers: { 'Which?': 'A' } },
      closed: { reason: 'answered' },
    });
    expect(items[2]).toMatchObject({ closed: { reason: 'denied' } });
    expect(summarize(state)).toMatchObject({ pendingQuestionIds: [], pendingPermissionIds: [] });
  });

  it('rebuilds an unchanged item from the same event object, so its component can skip the render', () => {
    const before = applyFrames(emptyTranscript, [started(1, 'run-1', 'go'), text(2, 'run-1', 'm', 'x')]);
    const after = applyFrame(before, text(3, 'run-1', 'n', 'y'));
    const [userBefore] = buildItems(before);
    const [userAfter] = buildItems(after);
    if (userBefore?.kind !== 'user' || userAfter?.kind !== 'user') expect.unreachable();
    expect(userAfter.event).toBe(userBefore.event);
    expect(userAfter.key).toBe(userBefore.key);
  });
});

describe('summarize', () => {
  it('reads the active run, the session, the latest status and what waits for the person', () => {
    const state = applyFrames(emptyTranscript, [
      started(1, 'run-1', 'first', 'chat'),
      relayEvent(2, {
        type: 'claude:system',
        runId: 'run-1',
        sessionId: 'session-1',
        model: 'claude-sonnet',
        cwd: '/w',
        tools: ['Bash'],
        slashCommands: ['compact', 'review'],
      }),
      relayEvent(3, { type: 'idea:status', status: 'chatting' }),
      relayEvent(4, { type: 'run:ended', runId: 'run-1', outcome: 'completed' }),
      started(5, 'run-2', 'now build', 'build'),
      relayEvent(6, { type: 'idea:status', status: 'building' }),
      relayEvent(7, {
        type: 'claude:permission_request',
        runId: 'run-2',
        requestId: 'p-1',
        toolName: 'Write',
        input: { file_path: '/w/a', content: 'x' },
      }),
    ]);
    expect(summarize(state)).toEqual({
      activeRun: { runId: 'run-2', mode: 'build', startedSeq: 5 },
      hasBuilt: true,
      sessionId: 'session-1',
      model: 'claude-sonnet',
      projectRoot: '/w',
      slashCommands: ['compact', 'review'],
      status: 'building',
      pendingQuestionIds: [],
      pendingPermissionIds: ['p-1'],
    });
    const ended = applyFrame(
      state,
      relayEvent(8, { type: 'run:ended', runId: 'run-2', outcome: 'cancelled' }),
    );
    expect(summarize(ended)).toMatchObject({ pendingPermissionIds: [] });
    expect(summarize(ended).activeRun).toBeUndefined();
  });
});
