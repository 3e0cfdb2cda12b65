import { describe, expect, it } from 'vitest';
import {
  SESSION_ID,
  initLine,
  lostSessionResultLine,
  successResultLine,
} from '../../../test/support/cli-line-fixtures.ts';
import {
  LifecycleHarness,
  finishesOf,
  typesOf,
  writtenLines,
} from '../../../test/support/run-lifecycle-harness.ts';

// A resumed session the CLI no longer has (lost-session.ts): the same run goes on in a new session, with a recap.

const NEW_SESSION = '11111111-2222-3333-4444-555555555555';
const EXITED_1 = { kind: 'exited', code: 1, signal: null } as const;

function lostRun(): LifecycleHarness {
  const run = new LifecycleHarness({ sessionId: SESSION_ID, prompt: 'Which data source?' });
  run.start();
  return run;
}

describe('RunLifecycle: a resumed session that is gone', () => {
  it('does not end the run: the process exits, the notice goes out, and a new process is asked for', () => {
    const run = lostRun();
    expect(typesOf(run.stderr(`No conversation found with session ID: ${SESSION_ID}`))).toEqual([]);
    expect(typesOf(run.line(lostSessionResultLine()))).toEqual(['log']);
    expect(typesOf(run.stderr('\n'))).toEqual([]);
    const restart = run.outcome(EXITED_1);
    expect(typesOf(restart)).toEqual(['emit:run:session_replaced', 'restart_without_session']);
    expect(restart[0]).toMatchObject({ event: { previousSessionId: SESSION_ID, runId: 'run-1' } });
  });

  it('sends the person`s message after the recap to the new process, saves the new session, and ends once', () => {
    const run = lostRun();
    run.line(lostSessionResultLine());
    run.outcome(EXITED_1);
    const restarted = run.feed({ type: 'restarted', recap: 'RECAP', now: run.now });
    expect(writtenLines(restarted)).toMatchObject([
      { type: 'user', message: { content: [{ type: 'text', text: 'RECAP\n\n---\n\nWhich data source?' }] } },
    ]);
    expect(typesOf(run.line(initLine(NEW_SESSION)))).toContain('session_started');
    run.line(successResultLine('Here we go.'));
    const ended = run.outcome({ kind: 'exited', code: 0, signal: null });
    expect(finishesOf(ended)).toMatchObject([{ outcome: 'completed' }]);
    const emitted = typesOf(run.log).filter((type) => type.startsWith('emit:'));
    expect(emitted.filter((type) => type === 'emit:run:started')).toHaveLength(1);
    expect(emitted.filter((type) => type === 'emit:run:ended')).toHaveLength(1);
    expect(emitted.filter((type) => type === 'emit:claude:result')).toHaveLength(1);
    expect(emitted.filter((type) => type === 'emit:claude:error')).toEqual([]);
  });

  it('tries once: a second lost session ends the run failed, with what the CLI said', () => {
    const run = lostRun();
    run.line(lostSessionResultLine());
    run.outcome(EXITED_1);
    run.feed({ type: 'restarted', recap: 'RECAP', now: run.now });
    run.line(lostSessionResultLine(NEW_SESSION));
    expect(finishesOf(run.outcome(EXITED_1))).toMatchObject([{ outcome: 'failed' }]);
  });

  it('a cancel before the new process starts stops the run; one that comes up is killed', () => {
    const run = lostRun();
    run.line(lostSessionResultLine());
    run.cancel();
    expect(finishesOf(run.outcome(EXITED_1))).toMatchObject([{ outcome: 'cancelled' }]);

    const later = lostRun();
    later.line(lostSessionResultLine());
    later.outcome(EXITED_1);
    later.cancel();
    expect(typesOf(later.feed({ type: 'restarted', recap: 'RECAP', now: later.now }))).toEqual([
      'kill_run',
      'set_timer',
    ]);
    expect(finishesOf(later.outcome({ kind: 'cancelled' }))).toMatchObject([{ outcome: 'cancelled' }]);
  });

  it('is not a lost session once the session answered, nor without a session to resume', () => {
    const answered = lostRun();
    answered.line(initLine());
    expect(typesOf(answered.line(lostSessionResultLine()))).toContain('emit:claude:result');

    const fresh = new LifecycleHarness();
    fresh.start();
    expect(typesOf(fresh.line(lostSessionResultLine()))).toContain('emit:claude:result');
    expect(typesOf(fresh.stderr('No conversation found with session ID: x'))).toEqual(['emit:claude:error']);
  });

  it('shows stderr held before the session answered, once it does', () => {
    const run = lostRun();
    expect(run.stderr('Warning: something\n')).toEqual([]);
    expect(typesOf(run.line(initLine()))).toContain('emit:claude:error');
  });
});
