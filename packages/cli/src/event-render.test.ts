import { RelayEventSchema, type RelayEvent, type ServerFrame } from '@catalyst/protocol';
import { describe, expect, it } from 'vitest';
import { EventRenderer, type Output } from './event-render.ts';
import { createPaint } from './paint.ts';

const ideaId = 'idea-0123456789abcdef';
const runId = 'run-1';
let seq = 0;

/** A relay event as the server sends it, checked against the protocol's schema. */
function event(fields: Record<string, unknown>, ts = '2026-01-01T00:00:00.000Z'): RelayEvent {
  seq += 1;
  return RelayEventSchema.parse({ ideaId, runId, seq, ts, ...fields });
}

function delta(messageId: string, text: string, index = 0): ServerFrame {
  return { type: 'claude:text_delta', ideaId, runId, messageId, index, text, parentToolUseId: null };
}

function text(messageId: string, value: string): RelayEvent {
  return event({ type: 'claude:text', text: value, messageId, parentToolUseId: null });
}

const result = {
  success: true,
  result: 'Done.',
  subtype: 'success',
  sessionId: 's',
  durationMs: 2345,
  costUsd: 0.0123,
  numTurns: 2,
  permissionDenials: [],
};

function renderAll(frames: ServerFrame[]): Output[] {
  const renderer = new EventRenderer(createPaint(false));
  return frames.flatMap((frame) => renderer.render(frame));
}

function streamText(outputs: Output[], stream: Output['stream']): string {
  return outputs
    .filter((output) => output.stream === stream)
    .map((output) => output.text)
    .join('');
}

describe('EventRenderer', () => {
  it('prints text as its deltas come, and only what they missed when the block arrives', () => {
    const out = streamText(
      renderAll([delta('m1', 'Hel'), delta('m1', 'lo'), text('m1', 'Hello there')]),
      'out',
    );
    expect(out).toBe('Hello there\n');
  });

  it('prints a block whole when no deltas were shown, or when they were abandoned by a retry', () => {
    expect(streamText(renderAll([text('m1', 'Plain.')]), 'out')).toBe('Plain.\n');
    const retried = renderAll([
      delta('m1', 'Par'),
      { type: 'claude:text_reset', ideaId, runId },
      text('m2', 'Partial, then whole.'),
    ]);
    expect(streamText(retried, 'out')).toBe('Par\nPartial, then whole.\n');
  });

  it('shows a tool call and its result on lines of their own, after the text before them', () => {
    const outputs = renderAll([
      delta('m1', 'Let me look'),
      event({
        type: 'claude:tool_use',
        toolUseId: 't1',
        name: 'Bash',
        input: { command: 'ls -la' },
        parentToolUseId: null,
      }),
      event({ type: 'claude:tool_result', toolUseId: 't1', content: 'a.txt\nb.txt\n', isError: false }),
      event({ type: 'claude:tool_result', toolUseId: 't2', content: 'No such file', isError: true }),
    ]);
    expect(streamText(outputs, 'out')).toBe(
      'Let me look\n→ Bash ls -la\n  ✓ a.txt (+1 lines)\n  ✗ No such file\n',
    );
  });

  it('shows a question with its numbered options, and who answered it, but not the tool call behind it', () => {
    const outputs = renderAll([
      event({
        type: 'claude:tool_use',
        toolUseId: 'ask1',
        name: 'AskUserQuestion',
        input: { questions: [] },
        parentToolUseId: null,
      }),
      event({
        type: 'claude:question',
        questionId: 'q1',
        askedAt: '2026-01-01T00:00:00.000Z',
        questions: [
          {
            question: 'Which color?',
            header: 'Color',
            multiSelect: false,
            options: [
              { label: 'Red', description: 'Warm' },
              { label: 'Blue', description: 'Cool' },
            ],
          },
        ],
      }),
      event({
        type: 'claude:question_answered',
        questionId: 'q1',
        answers: { 'Which color?': 'Blue' },
        source: 'human',
        by: 'person',
      }),
      event({ type: 'claude:question_closed', questionId: 'q1', reason: 'answered' }),
      event({
        type: 'claude:tool_result',
        toolUseId: 'ask1',
        content: 'Your questions have been answered',
        isError: false,
      }),
    ]);
    expect(streamText(outputs, 'out')).toBe(
      '? Color: Which color?\n    1) Red – Warm\n    2) Blue – Cool\n    (or your own answer)\n  ↳ answered by person: Blue\n',
    );
  });

  it('ends with the outcome line on stderr: turns, duration, cost; and why, for a run that did not complete', () => {
    const completed = renderAll([event({ type: 'run:ended', outcome: 'completed', result })]);
    expect(streamText(completed, 'err')).toBe('completed · 2 turns · 2.3 s · $0.0123\n');
    const cancelled = renderAll([
      event({ type: 'run:started', mode: 'build', message: 'Go' }, '2026-01-01T00:00:00.000Z'),
      event(
        {
          type: 'run:ended',
          outcome: 'cancelled',
          error: { code: 'NO_RUN', message: 'The run was cancelled.' },
        },
        '2026-01-01T00:00:04.000Z',
      ),
    ]);
    expect(streamText(cancelled, 'err')).toBe('cancelled: The run was cancelled. · 4.0 s\n');
  });

  it('puts notices on stderr and keeps what the terminal does not need to itself', () => {
    const outputs = renderAll([
      event({ type: 'run:detached', host: 'vm', reason: 'socket closed' }),
      event({ type: 'claude:error', source: 'stderr', text: 'warning: x' }),
      event({ type: 'idea:status', status: 'building' }),
      event({ type: 'claude:result', result }),
    ]);
    expect(streamText(outputs, 'out')).toBe('');
    expect(streamText(outputs, 'err')).toBe(
      'Connection to vm lost (socket closed): Claude keeps working; reconnecting…\nclaude (stderr): warning: x\n',
    );
  });

  it("says what a build's checkpoint changed, and when there is none", () => {
    const change = {
      parent: null,
      filesChanged: 3,
      insertions: 40,
      deletions: 2,
      files: [{ path: 'a.txt', status: 'added', insertions: 40, deletions: 2 }],
    };
    const outputs = renderAll([
      event({ type: 'checkpoint:created', commit: 'b'.repeat(40), kind: 'before_build', ...change }),
      event({ type: 'checkpoint:created', commit: 'c'.repeat(40), kind: 'build', ...change }),
      event({
        type: 'checkpoint:restored',
        commit: 'd'.repeat(40),
        kind: 'restore',
        restoredTo: 'c'.repeat(40),
        ...change,
        filesChanged: 1,
      }),
      event({
        type: 'checkpoint:unavailable',
        reason: 'git is not installed on vm: builds are not checkpointed.',
      }),
    ]);
    expect(streamText(outputs, 'err')).toBe(
      `Checkpoint ${'c'.repeat(12)}: 3 files changed, +40 −2\n` +
        `Restored; checkpoint ${'d'.repeat(12)}: 1 file changed, +40 −2\n` +
        'git is not installed on vm: builds are not checkpointed.\n',
    );
  });
});
