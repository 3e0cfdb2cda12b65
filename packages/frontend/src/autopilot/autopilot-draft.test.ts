import { MAX_AUTOPILOT_STEPS } from '@catalyst/protocol';
import { describe, expect, it } from 'vitest';
import {
  addStep,
  canAddStep,
  checkDraft,
  createDraft,
  followComposerMode,
  moveStep,
  removeStep,
  updateStep,
  type AutopilotDraft,
} from './autopilot-draft.ts';

// The draft of an autopilot: steps added, moved and removed keep their ids; a draft becomes a request body only
// when every step has a message and the budget is an amount.

function draftOf(...messages: string[]): AutopilotDraft {
  let draft = createDraft();
  for (const [index, message] of messages.entries()) {
    if (index > 0) draft = addStep(draft);
    const step = draft.steps[index];
    if (step !== undefined) draft = updateStep(draft, step.id, { message });
  }
  return draft;
}

const messagesOf = (draft: AutopilotDraft) => draft.steps.map((step) => step.message);

describe('autopilot draft', () => {
  it('starts with one empty chat step, questions answered by the model, stopping at a failure', () => {
    expect(createDraft()).toMatchObject({
      steps: [{ mode: 'chat', message: '' }],
      questionPolicy: 'auto',
      stopOnFailure: true,
      budgetText: '',
    });
  });

  it('starts its steps in the composer’s mode, and follows it where the person set nothing (issue 40)', () => {
    let draft = addStep(createDraft('build'));
    expect(draft.steps.map((step) => step.mode)).toEqual(['build', 'build']);
    const [first, second] = draft.steps;
    if (first === undefined || second === undefined) throw new Error('two steps expected');
    draft = updateStep(draft, first.id, { message: 'Written.' });
    draft = followComposerMode(draft, 'chat');
    expect(draft.steps.map((step) => step.mode)).toEqual(['build', 'chat']);
    expect(addStep(draft).steps.at(-1)?.mode).toBe('chat');
    draft = updateStep(draft, second.id, { mode: 'build' });
    expect(followComposerMode(draft, 'build').steps.map((step) => step.mode)).toEqual(['build', 'build']);
  });

  it('moves a step up and down, and not past either end', () => {
    const draft = draftOf('plan', 'build', 'verify');
    const [plan, build, verify] = draft.steps.map((step) => step.id);
    if (plan === undefined || build === undefined || verify === undefined) throw new Error('three steps');
    expect(messagesOf(moveStep(draft, verify, -1))).toEqual(['plan', 'verify', 'build']);
    expect(messagesOf(moveStep(draft, plan, 1))).toEqual(['build', 'plan', 'verify']);
    expect(moveStep(draft, plan, -1)).toBe(draft);
    expect(moveStep(draft, verify, 1)).toBe(draft);
    expect(messagesOf(removeStep(draft, build))).toEqual(['plan', 'verify']);
  });

  it('gives every new step an id of its own, also after a removal', () => {
    const draft = addStep(removeStep(draftOf('a', 'b'), 2));
    expect(draft.steps.map((step) => step.id)).toEqual([1, 3]);
  });

  it('stops adding at the most steps an autopilot may have', () => {
    let draft = createDraft();
    while (canAddStep(draft)) draft = addStep(draft);
    expect(draft.steps).toHaveLength(MAX_AUTOPILOT_STEPS);
    expect(addStep(draft)).toBe(draft);
  });

  it('becomes the request body, messages trimmed and the budget a number', () => {
    const draft = updateStep(
      { ...draftOf(' /plan-phase 1 ', 'Build it.'), questionPolicy: 'human', budgetText: ' 2.5 ' },
      2,
      { mode: 'build' },
    );
    expect(checkDraft(draft)).toEqual({
      ok: true,
      body: {
        steps: [
          { mode: 'chat', message: '/plan-phase 1' },
          { mode: 'build', message: 'Build it.' },
        ],
        questionPolicy: 'human',
        stopOnFailure: true,
        maxBudgetUsd: 2.5,
      },
    });
    expect(checkDraft({ ...draft, budgetText: '' })).toMatchObject({
      ok: true,
      body: { questionPolicy: 'human' },
    });
  });

  it('says what to fix: an empty step, no step, a budget that is not an amount', () => {
    expect(checkDraft(draftOf('plan', '  '))).toEqual({ ok: false, problem: 'Step 2 has no message yet.' });
    expect(checkDraft(removeStep(draftOf('plan'), 1))).toMatchObject({ ok: false });
    for (const budgetText of ['0', '-1', 'ten', '2000000']) {
      const check = checkDraft({ ...draftOf('plan'), budgetText });
      expect(check.ok ? 'accepted' : check.problem).toMatch(/^The budget must be an amount in USD/);
    }
  });
});
