import { createAllowResponse, createDenyResponse } from '@catalyst/protocol';
import { describe, expect, it } from 'vitest';
import {
  askInput,
  canUseToolLine,
  initLine,
  successResultLine,
  writeInput,
} from '../../../test/support/cli-line-fixtures.ts';
import { STOPPING_MESSAGE } from './tool-policy.ts';
import {
  LifecycleHarness,
  finishesOf,
  typesOf,
  writtenLines,
} from '../../../test/support/run-lifecycle-harness.ts';

// Prompts that wait for a person (run-lifecycle-prompts.ts, protocol §8.2–§8.4), through the pure lifecycle.

const timeoutMs = 1_000;

function askingRun(permissions = false): LifecycleHarness {
  const run = new LifecycleHarness({
    inactivityTimeoutMs: timeoutMs,
    askPerson: { questions: true, permissions },
  });
  run.start();
  run.line(initLine());
  return run;
}

describe('prompts in the run lifecycle', () => {
  it('asks for an AskUserQuestion instead of answering, and writes the answer when it comes', () => {
    const run = askingRun();
    const asked = run.line(canUseToolLine('AskUserQuestion', askInput, 'q-1'));
    expect(asked).toContainEqual(
      expect.objectContaining({ type: 'ask', prompt: 'question', requestId: 'q-1' }),
    );
    expect(writtenLines(asked)).toEqual([]);

    const response = createAllowResponse('q-1', { ...askInput, answers: { x: 'Red' } });
    const answered = run.feed({ type: 'prompt_answered', id: 'q-1', response, now: run.now });
    expect(writtenLines(answered)).toEqual([response]);
  });

  it('pauses the inactivity timeout while a prompt waits, and re-arms it after the answer', () => {
    const run = askingRun();
    run.line(canUseToolLine('AskUserQuestion', askInput, 'q-1'));
    expect(finishesOf(run.advance(timeoutMs * 10))).toEqual([]);
    expect(typesOf(run.advance(timeoutMs * 10))).not.toContain('write_line');
    const response = createAllowResponse('q-1', askInput);
    run.feed({ type: 'prompt_answered', id: 'q-1', response, now: run.now });
    expect(run.timers.has('inactivity')).toBe(true);
  });

  it('drops a late answer and one to an unknown id', () => {
    const run = askingRun();
    const response = createAllowResponse('nope', askInput);
    const late = run.feed({ type: 'prompt_answered', id: 'nope', response, now: run.now });
    expect(writtenLines(late)).toEqual([]);
    expect(typesOf(late)).toEqual(['log']);
  });

  it('asks about a write in build only with the permission prompt on; reads are never asked', () => {
    expect(typesOf(askingRun(true).line(canUseToolLine('Write', writeInput)))).toContain('ask');
    expect(typesOf(askingRun(true).line(canUseToolLine('Read', { file_path: '/x' })))).toContain(
      'write_line',
    );
    expect(typesOf(askingRun(false).line(canUseToolLine('Write', writeInput)))).toContain('write_line');
  });

  it('remembers an allow the person chose to remember: the same kind of call is answered without asking', () => {
    const run = askingRun(true);
    const bare = (tool: string, input: Record<string, unknown>, id: string) => {
      const line = canUseToolLine(tool, input, id);
      // Under an ask rule the CLI offers no suggestions (docs/protocol.md, "Settings"): Catalyst offers its own.
      const { permission_suggestions: _omitted, ...request } = line.request;
      return { ...line, request };
    };
    const asked = run.line(bare('Write', writeInput, 'p-1'));
    const ask = asked.find((command) => command.type === 'ask');
    const suggestions = ask?.type === 'ask' ? ask.request.permission_suggestions : undefined;
    expect(suggestions).toEqual([
      { type: 'addRules', rules: [{ toolName: 'Write' }], behavior: 'allow', destination: 'session' },
    ]);
    const remember = createAllowResponse('p-1', writeInput, { updatedPermissions: suggestions ?? [] });
    run.feed({ type: 'prompt_answered', id: 'p-1', response: remember, now: run.now });

    const edit = run.line(bare('Edit', { file_path: '/x', old_string: 'a', new_string: 'b' }, 'p-2'));
    expect(typesOf(edit)).not.toContain('ask');
    expect(writtenLines(edit)).toEqual([
      createAllowResponse('p-2', { file_path: '/x', old_string: 'a', new_string: 'b' }),
    ]);
    expect(typesOf(run.line(bare('Bash', { command: 'ls' }, 'p-3')))).toContain('ask');
  });

  it('an allow without remember is not remembered', () => {
    const run = askingRun(true);
    run.line(canUseToolLine('Write', writeInput, 'p-1'));
    run.feed({
      type: 'prompt_answered',
      id: 'p-1',
      response: createAllowResponse('p-1', writeInput),
      now: run.now,
    });
    expect(typesOf(run.line(canUseToolLine('Write', writeInput, 'p-2')))).toContain('ask');
  });

  it('closes a prompt the CLI withdraws (§8.4) without writing anything', () => {
    const run = askingRun(true);
    run.line(canUseToolLine('Write', writeInput, 'p-1'));
    const withdrawn = run.line({ type: 'control_cancel_request', request_id: 'p-1' });
    expect(withdrawn).toContainEqual({ type: 'close_prompts', ids: ['p-1'], reason: 'withdrawn' });
    expect(writtenLines(withdrawn)).toEqual([]);
  });

  it('on cancel, denies every waiting prompt with interrupt and closes them as cancelled', () => {
    const run = askingRun(true);
    run.line(canUseToolLine('AskUserQuestion', askInput, 'q-1'));
    run.line(canUseToolLine('Write', writeInput, 'p-1'));
    const stop = run.cancel();
    expect(stop).toContainEqual({ type: 'close_prompts', ids: ['q-1', 'p-1'], reason: 'cancelled' });
    const deny = (id: string) => createDenyResponse(id, STOPPING_MESSAGE, { interrupt: true });
    expect(writtenLines(stop)).toEqual(expect.arrayContaining([deny('q-1'), deny('p-1')]));
  });

  it('closes waiting prompts as cancelled when the process is gone, writing nothing', () => {
    const run = askingRun();
    run.line(canUseToolLine('AskUserQuestion', askInput, 'q-1'));
    const ended = run.outcome({ kind: 'connection_lost', message: 'gone' });
    expect(ended).toContainEqual({ type: 'close_prompts', ids: ['q-1'], reason: 'cancelled' });
    expect(writtenLines(ended)).toEqual([]);
    expect(finishesOf(ended)).toHaveLength(1);
  });

  it('asks nobody once the input is closed', () => {
    const run = askingRun();
    run.line(successResultLine());
    expect(typesOf(run.line(canUseToolLine('AskUserQuestion', askInput)))).not.toContain('ask');
  });
});
