import {
  MAX_AUTOPILOT_STEPS,
  MAX_BUDGET_USD,
  StartAutopilotBodySchema,
  type QuestionPolicy,
  type RunMode,
  type StartAutopilotBody,
} from '@catalyst/protocol';

/**
 * The autopilot a person is putting together on the idea's page: its steps in order, each with an id of its own so
 * React keeps a step's fields (and the focus) with it when it moves. Pure: every change returns a new draft.
 */

export interface DraftStep {
  readonly id: number;
  readonly mode: RunMode;
  readonly message: string;
}

export interface AutopilotDraft {
  readonly steps: readonly DraftStep[];
  readonly questionPolicy: QuestionPolicy;
  readonly stopOnFailure: boolean;
  /** As typed: empty for no limit. */
  readonly budgetText: string;
  readonly nextId: number;
  /** The mode a new step starts in: the composer's (issue 40), so a build's next steps are builds. */
  readonly newStepMode: RunMode;
}

export function createDraft(newStepMode: RunMode = 'chat'): AutopilotDraft {
  return {
    steps: [{ id: 1, mode: newStepMode, message: '' }],
    questionPolicy: 'auto',
    stopOnFailure: true,
    budgetText: '',
    nextId: 2,
    newStepMode,
  };
}

/**
 * The composer's mode changed: new steps start in it, and so do the steps still as they were added (no message
 * yet, their mode untouched); a step the person wrote or set keeps its mode.
 */
export function followComposerMode(draft: AutopilotDraft, mode: RunMode): AutopilotDraft {
  if (draft.newStepMode === mode) return draft;
  const steps = draft.steps.map((step) =>
    step.message === '' && step.mode === draft.newStepMode ? { ...step, mode } : step,
  );
  return { ...draft, steps, newStepMode: mode };
}

export function canAddStep(draft: AutopilotDraft): boolean {
  return draft.steps.length < MAX_AUTOPILOT_STEPS;
}

/** A new step at the end, in the composer's mode; the draft as it was once it has the most steps it may have. */
export function addStep(draft: AutopilotDraft): AutopilotDraft {
  if (!canAddStep(draft)) return draft;
  const step: DraftStep = { id: draft.nextId, mode: draft.newStepMode, message: '' };
  return { ...draft, steps: [...draft.steps, step], nextId: draft.nextId + 1 };
}

export function removeStep(draft: AutopilotDraft, id: number): AutopilotDraft {
  return { ...draft, steps: draft.steps.filter((step) => step.id !== id) };
}

/** Swaps the step with its neighbour before (-1) or after (1); the draft as it was at either end. */
export function moveStep(draft: AutopilotDraft, id: number, by: -1 | 1): AutopilotDraft {
  const from = draft.steps.findIndex((step) => step.id === id);
  const to = from + by;
  const moving = draft.steps[from];
  const other = draft.steps[to];
  if (from < 0 || moving === undefined || other === undefined) return draft;
  const steps = draft.steps.slice();
  steps[to] = moving;
  steps[from] = other;
  return { ...draft, steps };
}

export function updateStep(
  draft: AutopilotDraft,
  id: number,
  change: Partial<Pick<DraftStep, 'mode' | 'message'>>,
): AutopilotDraft {
  return { ...draft, steps: draft.steps.map((step) => (step.id === id ? { ...step, ...change } : step)) };
}

export type DraftCheck = { ok: true; body: StartAutopilotBody } | { ok: false; problem: string };

/** The body of `POST /api/ideas/:id/autopilot`, or what to fix first, in a sentence. */
export function checkDraft(draft: AutopilotDraft): DraftCheck {
  if (draft.steps.length === 0) return { ok: false, problem: 'Add a step: an autopilot needs at least one.' };
  const empty = draft.steps.findIndex((step) => step.message.trim() === '');
  if (empty >= 0) return { ok: false, problem: `Step ${empty + 1} has no message yet.` };
  const budget = readBudget(draft.budgetText);
  if (budget === 'invalid') {
    return {
      ok: false,
      problem: `The budget must be an amount in USD above 0 and at most ${MAX_BUDGET_USD.toLocaleString('en')}, or empty for none.`,
    };
  }
  const parsed = StartAutopilotBodySchema.safeParse({
    steps: draft.steps.map((step) => ({ mode: step.mode, message: step.message.trim() })),
    questionPolicy: draft.questionPolicy,
    stopOnFailure: draft.stopOnFailure,
    ...(budget === undefined ? {} : { maxBudgetUsd: budget }),
  });
  if (!parsed.success) return { ok: false, problem: 'A step’s message is too long to send.' };
  return { ok: true, body: parsed.data };
}

function readBudget(text: string): number | undefined | 'invalid' {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  const value = Number(trimmed);
  return Number.isFinite(value) && value > 0 && value <= MAX_BUDGET_USD ? value : 'invalid';
}
