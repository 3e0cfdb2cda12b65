import { describe, expect, it } from 'vitest';
import { createInterruptRequest } from '@catalyst/protocol';
import {
  assistantLine,
  initLine,
  messageStartLine,
  streamEventLine,
  successResultLine,
  textDeltaLine,
} from '../../../test/support/cli-line-fixtures.ts';
import {
  LifecycleHarness,
  finishesOf,
  typesOf,
  writtenLines,
} from '../../../test/support/run-lifecycle-harness.ts';

const exited = (code: number) => ({ kind: 'exited', code, signal: null }) as const;

describe('RunLifecycle: streaming text (--include-partial-messages)', () => {
  it('relays deltas live, in stdout order with the events, and stores no stream_event or status line', () => {
    const run = new LifecycleHarness();
    run.start();
    const lines = [
      initLine(),
      { type: 'system', subtype: 'status', status: 'requesting', session_id: 's' },
      messageStartLine(),
      textDeltaLine('Hel'),
      textDeltaLine('lo.'),
      assistantLine({ type: 'text', text: 'Hello.' }),
      streamEventLine({ type: 'content_block_stop', index: 0 }),
      streamEventLine({ type: 'message_stop' }),
      successResultLine('Hello.'),
    ];
    const types = lines.flatMap((line) => typesOf(run.line(line)));
    expect(types.filter((type) => type.startsWith('emit:') || type.startsWith('live:'))).toEqual([
      'emit:claude:system',
      'live:claude:text_delta',
      'live:claude:text_delta',
      'emit:claude:text',
      'emit:claude:result',
    ]);
    expect(typesOf(run.outcome(exited(0)))).not.toContain('live:claude:text_reset');
  });

  it('counts every stream_event line as output: a long streamed answer never times out', () => {
    const run = new LifecycleHarness({ inactivityTimeoutMs: 60_000 });
    run.start();
    run.line(messageStartLine());
    for (let second = 0; second < 300; second += 30) {
      expect(writtenLines(run.advance(30_000))).toEqual([]);
      run.line(textDeltaLine(`${second} `));
    }
    expect(writtenLines(run.advance(60_000))).toEqual([createInterruptRequest('interrupt-run-1')]);
  });

  it('drops the partial text of a run that ends mid-stream, before run:ended', () => {
    const run = new LifecycleHarness();
    run.start();
    run.line(messageStartLine());
    run.line(textDeltaLine('Part one'));
    run.cancel();
    const ending = run.outcome({ kind: 'cancelled' });
    expect(typesOf(ending).slice(-3)).toEqual(['live:claude:text_reset', 'emit:run:ended', 'finish']);
    expect(finishesOf(ending)[0]).toMatchObject({ outcome: 'cancelled' });
  });
});
