import { describe, expect, it } from 'vitest';
import { commandResult, relayEvent, started } from '../../test/support/transcript-fixtures.ts';
import { findAttention, type Attention, type AttentionContext } from '@catalyst/protocol';
import { formatPageTitle } from './page-title.ts';

// What a person away from the tab is told: a question or permission request waiting for them, a run that ended,
// a failed autopilot step, an autopilot that ended; never the history before `afterSeq`, never a step's own run
// end, never a question the model answers by itself.

const context: AttentionContext = { afterSeq: 0, ideaTitle: 'Tip splitter', ideaPolicy: 'human' };

/** What the page tells in the tab (the push's own rendering is tested apart). */
const inTab = (found: readonly Attention[]) => found.map(({ push: _push, ...told }) => told);

const question = (seq: number, runId: string, questionId = `q${seq}`) =>
  relayEvent(seq, {
    type: 'claude:question',
    runId,
    questionId,
    askedAt: '2025-01-01T12:00:00.000Z',
    questions: [{ question: 'Which color?', header: 'Color', options: [], multiSelect: false }],
  });
const ended = (seq: number, runId: string, outcome: 'completed' | 'failed' = 'completed') =>
  relayEvent(seq, {
    type: 'run:ended',
    runId,
    outcome,
    ...(outcome === 'failed' ? { error: { code: 'INTERNAL', message: 'It broke.' } } : {}),
  });
const autopilotStarted = (seq: number, questionPolicy: 'auto' | 'human' = 'auto') =>
  relayEvent(seq, {
    type: 'autopilot:started',
    autopilotId: 'ap-1',
    steps: [
      { mode: 'chat', message: 'Plan.' },
      { mode: 'build', message: 'Build.' },
    ],
    questionPolicy,
    stopOnFailure: true,
  });

describe('findAttention', () => {
  it('tells of a run that ended and a question that waits, only after afterSeq', () => {
    const events = [started(1, 'r1', 'Hi'), ended(2, 'r1'), started(3, 'r2', 'Again'), question(4, 'r2')];
    expect(inTab(findAttention(events, context))).toEqual([
      { kind: 'run_ended', seq: 2, title: 'Run completed', body: 'Tip splitter' },
      { kind: 'question', seq: 4, title: 'Question waiting', body: 'Tip splitter: Which color?' },
    ]);
    expect(findAttention(events, { ...context, afterSeq: 2 }).map((a) => a.seq)).toEqual([4]);
    expect(findAttention(events, { ...context, afterSeq: 4 })).toEqual([]);
  });

  it('says why a run failed, and asks for a permission', () => {
    const permission = relayEvent(2, {
      type: 'claude:permission_request',
      runId: 'r1',
      requestId: 'p1',
      toolName: 'Bash',
      input: {},
    });
    expect(
      inTab(findAttention([started(1, 'r1', 'Go'), permission, ended(3, 'r1', 'failed')], context)),
    ).toEqual([
      {
        kind: 'permission',
        seq: 2,
        title: 'Permission waiting',
        body: 'Tip splitter: Claude asks to use Bash.',
      },
      { kind: 'run_ended', seq: 3, title: 'Run failed', body: 'Tip splitter: It broke.' },
    ]);
  });

  it('leaves out a question already answered, and one the model answers (policy auto)', () => {
    const answered = relayEvent(3, {
      type: 'claude:question_answered',
      runId: 'r1',
      questionId: 'q2',
      answers: {},
      source: 'human',
      by: 'person',
    });
    expect(findAttention([started(1, 'r1', 'Go'), question(2, 'r1'), answered], context)).toEqual([]);
    expect(
      findAttention([started(1, 'r1', 'Go'), question(2, 'r1')], { ...context, ideaPolicy: 'auto' }),
    ).toEqual([]);
  });

  it('in an autopilot: its policy decides about questions, its steps end quietly, a failed step and its end are told', () => {
    const events = [
      autopilotStarted(1, 'auto'),
      started(2, 'r1', 'Plan.'),
      question(3, 'r1'),
      ended(4, 'r1'),
      relayEvent(5, { type: 'autopilot:step_ended', autopilotId: 'ap-1', index: 0, state: 'completed' }),
      started(6, 'r2', 'Build.'),
      ended(7, 'r2', 'failed'),
      relayEvent(8, {
        type: 'autopilot:step_ended',
        autopilotId: 'ap-1',
        index: 1,
        state: 'failed',
        result: commandResult({ durationMs: 10, numTurns: 1, costUsd: 0.01, error: 'No.' }),
        error: { code: 'INTERNAL', message: 'Step 2 failed: it broke.' },
      }),
      relayEvent(9, {
        type: 'autopilot:ended',
        autopilotId: 'ap-1',
        state: 'failed',
        costUsd: 0.0123,
        error: { code: 'INTERNAL', message: 'Step 2 failed: it broke.' },
      }),
      started(10, 'r3', 'After.'),
      ended(11, 'r3'),
    ];
    expect(inTab(findAttention(events, context))).toEqual([
      {
        kind: 'step_failed',
        seq: 8,
        title: 'Autopilot step 2 failed',
        body: 'Tip splitter: Step 2 failed: it broke.',
      },
      {
        kind: 'autopilot_ended',
        seq: 9,
        title: 'Autopilot failed',
        body: 'Tip splitter · $0.0123: Step 2 failed: it broke.',
      },
      { kind: 'run_ended', seq: 11, title: 'Run completed', body: 'Tip splitter' },
    ]);
    // An autopilot that leaves questions to the person: one is told even when the idea's own policy is auto.
    const human = [autopilotStarted(1, 'human'), started(2, 'r1', 'Plan.'), question(3, 'r1')];
    expect(findAttention(human, { ...context, ideaPolicy: 'auto' }).map((a) => a.kind)).toEqual(['question']);
  });
});

describe('findAttention: a queue of messages (issue 30)', () => {
  it('tells of a pause, in Catalyst’s own words on the push, and names a queue’s end as such', () => {
    const events = [
      relayEvent(1, {
        type: 'autopilot:started',
        autopilotId: 'ap-1',
        kind: 'queue',
        steps: [{ id: 'q-1', mode: 'chat', message: 'Next.' }],
        questionPolicy: 'human',
        stopOnFailure: false,
      }),
      started(2, 'r1', 'Next.'),
      ended(3, 'r1', 'failed'),
      relayEvent(4, {
        type: 'autopilot:paused',
        autopilotId: 'ap-1',
        reason: 'failed',
        message: 'Step 1 failed: It broke. The rest waits.',
      }),
      relayEvent(5, { type: 'autopilot:ended', autopilotId: 'ap-1', state: 'completed', costUsd: 0 }),
    ];
    const found = findAttention(events, context);
    expect(found.map(({ kind, title, body }) => ({ kind, title, body }))).toEqual([
      {
        kind: 'queue_paused',
        title: 'Paused: a step failed',
        body: 'Tip splitter: Step 1 failed: It broke. The rest waits.',
      },
      { kind: 'autopilot_ended', title: 'Queued messages sent', body: 'Tip splitter · $0.0000' },
    ]);
    expect(found[0]?.push.body).toBe('Tip splitter: a queued message failed; the rest waits for you.');
  });
});

describe('findAttention: what a push says', () => {
  const ask = (seq: number, options: string[], multiSelect = false) =>
    relayEvent(seq, {
      type: 'claude:question',
      runId: 'r1',
      questionId: `q${seq}`,
      askedAt: '2025-01-01T12:00:00.000Z',
      questions: [
        {
          question: 'Ship the secret-key rotation now?',
          header: 'Ship',
          options: options.map((label) => ({ label, description: `${label}, because reasons` })),
          multiSelect,
        },
      ],
    });

  it('never carries Claude’s words: the question and a failure’s message stay in the tab', () => {
    const events = [started(1, 'r1', 'Go'), ask(2, []), ended(3, 'r1', 'failed')];
    const pushes = findAttention(events, context).map((found) => found.push);
    expect(pushes).toEqual([
      { title: 'Question waiting', body: 'Tip splitter: Claude is waiting for your answer.' },
      { title: 'Run failed', body: 'Tip splitter' },
    ]);
    expect(JSON.stringify(pushes)).not.toMatch(/secret-key|It broke/);
  });

  it('offers a question’s answers when it has two options at most, one choice; Allow and Deny for a permission', () => {
    const [two] = findAttention([started(1, 'r1', 'Go'), ask(2, ['Yes', 'Not yet'])], context);
    expect(two?.push.answers).toEqual([
      { kind: 'option', questionId: 'q2', question: 'Ship the secret-key rotation now?', label: 'Yes' },
      { kind: 'option', questionId: 'q2', question: 'Ship the secret-key rotation now?', label: 'Not yet' },
    ]);
    for (const event of [ask(2, ['A', 'B', 'C']), ask(2, ['A', 'B'], true)]) {
      expect(findAttention([started(1, 'r1', 'Go'), event], context)[0]?.push.answers).toBeUndefined();
    }
    const permission = relayEvent(2, {
      type: 'claude:permission_request',
      runId: 'r1',
      requestId: 'p1',
      toolName: 'Bash',
      input: { command: 'rm -rf build' },
    });
    const [asked] = findAttention([started(1, 'r1', 'Go'), permission], context);
    expect(asked?.push).toEqual({
      title: 'Permission waiting',
      body: 'Tip splitter: Claude asks for your permission to go on.',
      answers: [
        { kind: 'permission', requestId: 'p1', behavior: 'allow' },
        { kind: 'permission', requestId: 'p1', behavior: 'deny' },
      ],
    });
  });
});

describe('formatPageTitle', () => {
  it('counts what the person has not seen and names the latest; else the idea', () => {
    const [first, second] = findAttention(
      [started(1, 'r1', 'Hi'), question(2, 'r1'), ended(3, 'r1')],
      context,
    );
    if (first === undefined || second === undefined) throw new Error('two attentions');
    expect(formatPageTitle('Tip splitter', [])).toBe('Tip splitter · Catalyst');
    expect(formatPageTitle('Tip splitter', [first])).toBe('(1) Question waiting · Catalyst');
    expect(formatPageTitle('Tip splitter', [first, second])).toBe('(2) Run completed · Catalyst');
  });
});
