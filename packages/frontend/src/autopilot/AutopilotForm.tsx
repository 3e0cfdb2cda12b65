import type { QuestionPolicy, StartAutopilotBody } from '@catalyst/protocol';
import { useEffect, useId, useState } from 'react';
import {
  addStep,
  canAddStep,
  checkDraft,
  moveStep,
  removeStep,
  updateStep,
  type AutopilotDraft,
} from './autopilot-draft.ts';
import { StepEditor, stepControlId, type StepControl } from './StepEditor.tsx';

const QUESTION_POLICIES: { value: QuestionPolicy; label: string }[] = [
  { value: 'auto', label: 'A small model answers' },
  { value: 'human_then_auto', label: 'You, then the model after a wait' },
  { value: 'human', label: 'You answer (the autopilot waits)' },
];

interface AutopilotFormProps {
  draft: AutopilotDraft;
  onChange: (draft: AutopilotDraft) => void;
  slashCommands: readonly string[];
  isBusy: boolean;
  onStart: (body: StartAutopilotBody) => void;
}

/** A new autopilot: its steps, who answers Claude's questions, a budget; Start checks it first. */
export function AutopilotForm({ draft, onChange, slashCommands, isBusy, onStart }: AutopilotFormProps) {
  const formId = useId();
  const [problem, setProblem] = useState<string>();
  const change = (next: AutopilotDraft) => {
    setProblem(undefined);
    onChange(next);
  };
  return (
    <form
      className="ap-form"
      aria-label="New autopilot"
      onSubmit={(event) => {
        event.preventDefault();
        const check = checkDraft(draft);
        if (check.ok) onStart(check.body);
        else setProblem(check.problem);
      }}
    >
      <DraftStepList draft={draft} formId={formId} slashCommands={slashCommands} onChange={change} />
      {draft.steps.some((step) => step.mode === 'build') ? (
        <p className="hint">
          Build steps let Claude write files and run commands in this idea’s project folder on the host.
        </p>
      ) : null}
      <AutopilotOptions draft={draft} formId={formId} onChange={change} />
      {problem === undefined ? null : (
        <p className="form-error" role="alert">
          {problem}
        </p>
      )}
      <div className="actions">
        <button type="submit" className="primary" disabled={isBusy}>
          {isBusy ? 'Starting…' : 'Start autopilot'}
        </button>
      </div>
    </form>
  );
}

/** Where the focus goes once a change has rendered: a control of a step, or "Add step". */
type FocusTarget = { stepId: number; control: StepControl; fallback?: StepControl } | 'add';

interface DraftStepListProps {
  draft: AutopilotDraft;
  formId: string;
  slashCommands: readonly string[];
  onChange: (draft: AutopilotDraft) => void;
}

/** The steps in order, each movable and removable from the keyboard, and "Add step". */
function DraftStepList({ draft, formId, slashCommands, onChange }: DraftStepListProps) {
  const [focus, setFocus] = useState<FocusTarget>();
  useFocusAfterChange(formId, focus, setFocus);
  const change = (next: AutopilotDraft, nextFocus: FocusTarget | undefined) => {
    onChange(next);
    setFocus(nextFocus);
  };
  return (
    <>
      <ol className="ap-draft-steps" aria-label="Steps">
        {draft.steps.map((step, index) => (
          <StepEditor
            key={step.id}
            formId={formId}
            step={step}
            index={index}
            count={draft.steps.length}
            slashCommands={slashCommands}
            onChange={(stepChange) => {
              change(updateStep(draft, step.id, stepChange), undefined);
            }}
            onMove={(by) => {
              const [control, fallback] = by === -1 ? (['up', 'down'] as const) : (['down', 'up'] as const);
              change(moveStep(draft, step.id, by), { stepId: step.id, control, fallback });
            }}
            onRemove={() => {
              change(removeStep(draft, step.id), 'add');
            }}
          />
        ))}
      </ol>
      <button
        type="button"
        id={`${formId}-add`}
        disabled={!canAddStep(draft)}
        onClick={() => {
          change(addStep(draft), { stepId: draft.nextId, control: 'message' });
        }}
      >
        Add step
      </button>
    </>
  );
}

/**
 * A moved step's button stays under the keyboard (at either end, its other one, as the first is disabled there);
 * a removed step's focus goes to "Add step", an added step's to its message: never lost to the page's top.
 */
function useFocusAfterChange(
  formId: string,
  focus: FocusTarget | undefined,
  setFocus: (focus: FocusTarget | undefined) => void,
): void {
  useEffect(() => {
    if (focus === undefined) return;
    setFocus(undefined);
    if (focus === 'add') {
      document.getElementById(`${formId}-add`)?.focus();
      return;
    }
    const element = document.getElementById(stepControlId(formId, focus.stepId, focus.control));
    const isUsable = element instanceof HTMLButtonElement ? !element.disabled : element !== null;
    const target = isUsable || focus.fallback === undefined ? focus.control : focus.fallback;
    document.getElementById(stepControlId(formId, focus.stepId, target))?.focus();
  }, [focus, formId, setFocus]);
}

interface AutopilotOptionsProps {
  draft: AutopilotDraft;
  formId: string;
  onChange: (draft: AutopilotDraft) => void;
}

/** Who answers Claude's questions, a budget for the whole autopilot, and whether a failed step stops it. */
function AutopilotOptions({ draft, formId, onChange }: AutopilotOptionsProps) {
  return (
    <div className="ap-options">
      <div>
        <label htmlFor={`${formId}-policy`}>Questions</label>
        <select
          id={`${formId}-policy`}
          value={draft.questionPolicy}
          onChange={(event) => {
            const chosen = QUESTION_POLICIES.find((choice) => choice.value === event.target.value);
            if (chosen !== undefined) onChange({ ...draft, questionPolicy: chosen.value });
          }}
        >
          {QUESTION_POLICIES.map((choice) => (
            <option key={choice.value} value={choice.value}>
              {choice.label}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label htmlFor={`${formId}-budget`}>Max budget (USD)</label>
        <input
          id={`${formId}-budget`}
          type="number"
          inputMode="decimal"
          min="0"
          step="any"
          placeholder="No limit"
          value={draft.budgetText}
          onChange={(event) => {
            onChange({ ...draft, budgetText: event.target.value });
          }}
        />
      </div>
      <label className="ap-check">
        <input
          type="checkbox"
          checked={draft.stopOnFailure}
          onChange={(event) => {
            onChange({ ...draft, stopOnFailure: event.target.checked });
          }}
        />
        Stop at the first step that fails
      </label>
    </div>
  );
}
