import { describe, expect, it } from 'vitest';
import { initLine, successResultLine } from '../../../test/support/cli-line-fixtures.ts';
import {
  LifecycleHarness,
  finishesOf,
  typesOf,
  writtenLines,
} from '../../../test/support/run-lifecycle-harness.ts';
import { consumedMessageUuids, isResultOfMessage, messageUuidOf } from './turn-of-message.ts';

// Issue 39: the message goes to Claude with a uuid, and its turn ends at the result that lists it (measured on
// 2.1.331: `user_message_uuids`), also when that result is of a turn the CLI began by itself and folded the message
// into (`origin.kind: "task-notification"`).

const ownOrigin = { origin: { kind: 'task-notification' } };

function runningTurn(): LifecycleHarness {
  const run = new LifecycleHarness();
  run.start();
  run.line(initLine());
  return run;
}

describe('RunLifecycle: the result of the message sent, by its uuid', () => {
  it('sends the message with a uuid of the run’s own, the same for the run taken up after a restart', () => {
    const run = new LifecycleHarness();
    const [line] = writtenLines(run.start());
    expect(line).toMatchObject({ type: 'user', uuid: messageUuidOf('run-1') });
    expect(messageUuidOf('run-1')).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(new LifecycleHarness({ runId: 'run-2' }).lifecycle.messageUuid).not.toBe(messageUuidOf('run-1'));
    expect(new LifecycleHarness({ runStartedAtMs: 1 }).lifecycle.messageUuid).toBe(messageUuidOf('run-1'));
  });

  it('ends at a CLI’s own turn that folded the message in, typed or not', () => {
    for (const extra of [{}, { total_cost_usd: 'x' }]) {
      const run = runningTurn();
      const folded = { ...successResultLine('Folded answer.'), ...ownOrigin, ...extra };
      const ours = { user_message_uuid: run.lifecycle.messageUuid.toUpperCase() };
      expect(run.line({ ...folded, ...ours })).toContainEqual({ type: 'end_input' });
    }
    const run = runningTurn();
    const result = { ...successResultLine('Folded.'), ...ownOrigin };
    run.line({ ...result, user_message_uuids: ['other', run.lifecycle.messageUuid] });
    const [finish] = finishesOf(run.outcome({ kind: 'exited', code: 0, signal: null }));
    expect(finish).toMatchObject({ outcome: 'completed', result: { result: 'Folded.' } });
  });

  it('goes on past a result that lists other messages only, or is the CLI’s own', () => {
    const run = runningTurn();
    const other = { ...successResultLine('Not ours.'), user_message_uuids: ['an-earlier-message'] };
    expect(typesOf(run.line(other))).toEqual(['log']);
    expect(typesOf(run.line({ ...successResultLine('Own.'), ...ownOrigin }))).not.toContain('end_input');
    const ours = { ...successResultLine('Ours.'), user_message_uuids: [run.lifecycle.messageUuid] };
    expect(run.line(ours)).toContainEqual({ type: 'end_input' });
  });

  it('relays nothing of the CLI’s queue bookkeeping (command_lifecycle)', () => {
    const run = runningTurn();
    const line = { type: 'command_lifecycle', command_uuid: run.lifecycle.messageUuid, state: 'started' };
    expect(run.line(line)).toEqual([]);
  });
});

describe('consumedMessageUuids / isResultOfMessage', () => {
  it('reads the list, else the last uuid alone, else nothing', () => {
    expect(consumedMessageUuids({ user_message_uuids: ['a', 'b'], user_message_uuid: 'b' })).toEqual([
      'a',
      'b',
    ]);
    expect(consumedMessageUuids({ user_message_uuid: 'b' })).toEqual(['b']);
    expect(consumedMessageUuids({ user_message_uuids: 'b' })).toBeUndefined();
    expect(consumedMessageUuids(null)).toBeUndefined();
  });

  it('judges a result that lists nothing by its origin, as an older CLI’s', () => {
    expect(isResultOfMessage({ type: 'result' }, 'u')).toBe(true);
    expect(isResultOfMessage({ type: 'result', ...ownOrigin }, 'u')).toBe(false);
    expect(isResultOfMessage({ type: 'result', ...ownOrigin, user_message_uuids: ['u'] }, 'u')).toBe(true);
    expect(isResultOfMessage({ type: 'result', user_message_uuids: ['v'] }, 'u')).toBe(false);
  });
});
