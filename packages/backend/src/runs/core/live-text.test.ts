import { describe, expect, it } from 'vitest';
import { LiveFrameSchema, type LiveFrame } from '@catalyst/protocol';
import {
  MESSAGE_ID,
  apiRetryLine,
  assistantLine,
  lineOf,
  messageStartLine,
  readToolUse,
  streamEventLine,
  successResultLine,
  textDeltaLine,
} from '../../../test/support/cli-line-fixtures.ts';
import { LiveText } from './live-text.ts';

const ctx = { ideaId: 'idea-0123456789abcdef', runId: 'run-1' };
const reset = { type: 'claude:text_reset', ...ctx };
const OTHER_ID = 'msg_mock_retry_2';

function delta(text: string, index = 0, messageId = MESSAGE_ID, parentToolUseId: string | null = null) {
  return { type: 'claude:text_delta', ...ctx, messageId, index, text, parentToolUseId };
}

function assistantOf(messageId: string, text: string) {
  const line = assistantLine({ type: 'text', text });
  return { ...line, message: { ...line.message, id: messageId } };
}

/** Feeds raw lines in order; returns the frames of each, every one checked against the wire schema. */
function feed(live: LiveText, ...raws: Record<string, unknown>[]): LiveFrame[][] {
  return raws.map((raw) => {
    const frames = live.framesFor(lineOf(raw));
    for (const frame of frames) expect(LiveFrameSchema.safeParse(frame).error).toBeUndefined();
    return frames;
  });
}

describe('LiveText', () => {
  it('relays each text delta with the id of the message_start before it, then nothing for the whole line', () => {
    const live = new LiveText(ctx);
    const frames = feed(
      live,
      messageStartLine(),
      streamEventLine({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
      textDeltaLine('Part one '),
      textDeltaLine('and two.'),
      assistantLine({ type: 'text', text: 'Part one and two.' }),
      streamEventLine({ type: 'content_block_stop', index: 0 }),
      streamEventLine({ type: 'message_stop' }),
      successResultLine(),
    );
    expect(frames).toEqual([[], [], [delta('Part one ')], [delta('and two.')], [], [], [], []]);
    expect(live.end()).toEqual([]);
  });

  it('keeps the block index and the parent tool use of a subagent', () => {
    const live = new LiveText(ctx);
    expect(feed(live, messageStartLine(), textDeltaLine('Sub', 2, 'toolu_parent'))[1]).toEqual([
      delta('Sub', 2, MESSAGE_ID, 'toolu_parent'),
    ]);
  });

  it('relays no tool input, thinking or signature delta, and no delta before any message_start', () => {
    const live = new LiveText(ctx);
    const notText = [
      { type: 'input_json_delta', partial_json: '{"file_path":' },
      { type: 'thinking_delta', thinking: 'Hmm' },
      { type: 'signature_delta', signature: 'sig' },
    ];
    const events = notText.map((d) => streamEventLine({ type: 'content_block_delta', index: 1, delta: d }));
    expect(feed(live, textDeltaLine('orphan'), messageStartLine(), ...events).flat()).toEqual([]);
    expect(feed(live, apiRetryLine())).toEqual([[]]);
  });

  it('resets on api_retry once partial text was relayed, and only once', () => {
    const live = new LiveText(ctx);
    const frames = feed(live, messageStartLine(), textDeltaLine('This '), apiRetryLine(), apiRetryLine());
    expect(frames.slice(2)).toEqual([[reset], []]);
  });

  it('resets on a new message_start while the last message had deltas but no complete line', () => {
    const live = new LiveText(ctx);
    const frames = feed(
      live,
      messageStartLine(),
      textDeltaLine('This '),
      messageStartLine(OTHER_ID),
      textDeltaLine('Again.'),
    );
    expect(frames.slice(2)).toEqual([[reset], [delta('Again.', 0, OTHER_ID)]]);
  });

  it('does not reset on the next message_start when every streamed block got its line', () => {
    const live = new LiveText(ctx);
    const frames = feed(
      live,
      messageStartLine(),
      textDeltaLine('Reading.'),
      assistantLine({ type: 'text', text: 'Reading.' }),
      assistantLine(readToolUse),
      messageStartLine(OTHER_ID),
    );
    expect(frames.slice(2)).toEqual([[], [], []]);
  });

  it('resets before the line of another message: the silent non-streaming retry of a broken stream', () => {
    // Measured on CLI 2.1.197 (an SSE error after "This "): no api_retry, no message_start, just the new line.
    const live = new LiveText(ctx);
    const frames = feed(live, messageStartLine(), textDeltaLine('This '), assistantOf(OTHER_ID, 'Whole.'));
    expect(frames[2]).toEqual([reset]);
  });

  it('resets at the end of the run when partial text was never completed (a cancel or stall mid-stream)', () => {
    const live = new LiveText(ctx);
    feed(live, messageStartLine(), textDeltaLine('Part one'));
    expect(live.end()).toEqual([reset]);
    expect(live.end()).toEqual([]);
  });
});
