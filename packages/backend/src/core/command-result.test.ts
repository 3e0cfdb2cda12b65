import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseCliOutput, type CliMessage } from '@catalyst/protocol';
import { isCliOwnTurnResult, parseResult } from './command-result.ts';

// Result lines as the real CLI prints them (claude-cli-protocol.md §3.4–§3.6), run through the real parser first.
const base = {
  type: 'result',
  duration_ms: 176,
  duration_api_ms: 46,
  num_turns: 2,
  stop_reason: 'end_turn',
  session_id: 'aeb165df-4889-431c-92f5-d781e8dd8402',
  total_cost_usd: 0.00235,
  usage: { input_tokens: 200, output_tokens: 54 },
  modelUsage: {},
  permission_denials: [],
  terminal_reason: 'completed',
  uuid: '404bf9bb-939b-49f4-840f-8ac2be37426d',
};

function resultLine(fields: Record<string, unknown>): Extract<CliMessage, { type: 'result' | 'unknown' }> {
  const message = parseCliOutput({ ...base, ...fields });
  if (message.type !== 'result' && message.type !== 'unknown')
    throw new Error(`not a result: ${message.type}`);
  return message;
}

afterEach(() => vi.useRealTimers());

describe('parseResult', () => {
  it('reads a success', () => {
    vi.useFakeTimers({ now: 10_000 });
    const message = resultLine({
      subtype: 'success',
      is_error: false,
      api_error_status: null,
      result: 'Three lines.',
    });
    expect(message.type).toBe('result');
    expect(parseResult(message, 'ignored', 7_500)).toEqual({
      success: true,
      result: 'Three lines.',
      subtype: 'success',
      sessionId: base.session_id,
      durationMs: 2_500,
      costUsd: 0.00235,
      numTurns: 2,
      permissionDenials: [],
      terminalReason: 'completed',
    });
  });

  it('treats success with is_error (an API error) as a failure with the CLI text', () => {
    const text = 'API Error: 529 Overloaded. This is a server-side issue, usually temporary.';
    const outcome = parseResult(
      resultLine({ subtype: 'success', is_error: true, api_error_status: 529, result: text }),
      's',
      0,
    );
    expect(outcome).toMatchObject({ success: false, error: text, apiErrorStatus: 529, subtype: 'success' });
    expect(outcome.result).toBeUndefined();
  });

  it('joins an error subtype’s errors with "; "', () => {
    const message = resultLine({
      subtype: 'error_during_execution',
      is_error: true,
      errors: ['first', 'second'],
    });
    expect(parseResult(message, 's', 0)).toMatchObject({ success: false, error: 'first; second' });
  });

  it('reads error_max_turns', () => {
    const message = resultLine({
      subtype: 'error_max_turns',
      is_error: true,
      errors: ['Reached maximum number of turns (1)'],
      terminal_reason: 'max_turns',
    });
    expect(parseResult(message, 's', 0)).toMatchObject({
      success: false,
      subtype: 'error_max_turns',
      error: 'Reached maximum number of turns (1)',
      terminalReason: 'max_turns',
    });
  });

  it.each([
    ['empty', { errors: [] }],
    ['missing', {}],
  ])('says "Command failed: <subtype>" when errors are %s', (_label, errors) => {
    const message = resultLine({ subtype: 'error_max_budget_usd', is_error: true, ...errors });
    expect(parseResult(message, 's', 0)).toMatchObject({
      success: false,
      error: 'Command failed: error_max_budget_usd',
    });
  });

  it('defaults a missing cost and turn count to 0', () => {
    const message = resultLine({
      subtype: 'success',
      is_error: false,
      result: 'ok',
      total_cost_usd: undefined,
      num_turns: undefined,
    });
    expect(parseResult(message, 's', 0)).toMatchObject({ success: true, costUsd: 0, numTurns: 0 });
  });

  it('treats an unknown subtype as a failure, not a crash', () => {
    const message = resultLine({ subtype: 'error_from_the_future', is_error: true });
    expect(message.type).toBe('unknown');
    expect(parseResult(message, 's', 0)).toMatchObject({
      success: false,
      subtype: 'error_from_the_future',
      error: 'Command failed: unknown result subtype "error_from_the_future"',
    });
  });

  it('falls back to the given session id when the line has none', () => {
    const message = resultLine({ subtype: 'success', is_error: false, result: 'ok', session_id: undefined });
    expect(parseResult(message, 'from-init', 0).sessionId).toBe('from-init');
  });

  it('keeps permission denials', () => {
    const denial = {
      tool_name: 'Write',
      tool_use_id: 'toolu_1',
      tool_input: { file_path: '/w/x', content: 'x' },
    };
    const message = resultLine({
      subtype: 'success',
      is_error: false,
      result: 'ok',
      permission_denials: [denial],
    });
    expect(parseResult(message, 's', 0).permissionDenials).toEqual([denial]);
  });
});

describe('isCliOwnTurnResult', () => {
  it('tells the result of a turn the CLI ran by itself (a task notification) from the one of a message sent', () => {
    expect(isCliOwnTurnResult({ type: 'result', origin: { kind: 'task-notification' } })).toBe(true);
    expect(isCliOwnTurnResult({ type: 'result' })).toBe(false);
    expect(isCliOwnTurnResult({ type: 'result', origin: { kind: 'human' } })).toBe(false);
    expect(isCliOwnTurnResult({ type: 'result', origin: 'task-notification' })).toBe(false);
    expect(isCliOwnTurnResult(null)).toBe(false);
  });
});
