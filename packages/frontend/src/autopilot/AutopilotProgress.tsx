import type { AutopilotStepState, AutopilotStepView, AutopilotView } from '@catalyst/protocol';
import { formatCost } from '../base/format.ts';
import { formatDuration } from '../transcript/run-summary-text.ts';

const STEP_WORDS: Record<AutopilotStepState, string> = {
  pending: 'Pending',
  running: 'Running',
  paused: 'Stopped at its budget',
  completed: 'Completed',
  failed: 'Failed',
  cancelled: 'Cancelled',
  skipped: 'Skipped',
};

const AUTOPILOT_WORDS: Record<AutopilotView['state'], string> = {
  running: 'Running',
  paused: 'Paused',
  completed: 'Completed',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

/** "Running · step 2 of 3 · $0.0123", "Completed · 3 steps · $0.0456 · 1 question answered by the model". */
export function describeAutopilot(view: AutopilotView): string {
  const parts = [AUTOPILOT_WORDS[view.state]];
  const count = view.steps.length;
  parts.push(
    view.state === 'running'
      ? `step ${view.currentStep + 1} of ${count}`
      : `${count} step${count === 1 ? '' : 's'}`,
  );
  parts.push(formatCost(view.costUsd));
  const { questionsAsked, questionsAnsweredAutomatically } = view.questions;
  if (questionsAsked > 0) {
    parts.push(
      `${questionsAsked} question${questionsAsked === 1 ? '' : 's'}, ${questionsAnsweredAutomatically} answered by the model`,
    );
  }
  return parts.join(' · ');
}

/** "Completed · $0.0123 · 4.2 s": what the step's run cost and took, once it has a result. */
export function describeStep(step: AutopilotStepView): string {
  const parts = [STEP_WORDS[step.state]];
  if (step.result !== undefined) {
    parts.push(formatCost(step.result.costUsd), formatDuration(step.result.durationMs));
  }
  return parts.join(' · ');
}

interface AutopilotProgressProps {
  view: AutopilotView;
  isStopping: boolean;
  onCancel: () => void;
}

/** "Queue" for the messages a person queued while a run went, "Autopilot" for one started as such (issue 40). */
export function queueName(view: AutopilotView): 'Queue' | 'Autopilot' {
  return view.kind === 'queue' ? 'Queue' : 'Autopilot';
}

/** The running or last autopilot or queue: its outcome, each step's state, cost and time, and Cancel while it runs. */
export function AutopilotProgress({ view, isStopping, onCancel }: AutopilotProgressProps) {
  const isRunning = view.state === 'running';
  const name = queueName(view);
  return (
    <div className="ap-progress">
      <p className={`ap-outcome ap-${view.state}`} role="status">
        <strong>{isRunning ? name : `Last ${name.toLowerCase()}`}:</strong> {describeAutopilot(view)}
      </p>
      {view.error === undefined ? null : <p className="ap-error">{view.error.message}</p>}
      <ol className="ap-steps" aria-label={`${name} steps`}>
        {view.steps.map((step, index) => (
          <li key={index} className={`ap-step ap-step-${step.state}`}>
            <span className="ap-step-head">
              <span className="ap-step-mode">{step.mode === 'chat' ? 'Chat' : 'Build'}</span>{' '}
              <span className="ap-step-state">{describeStep(step)}</span>
            </span>
            <span className="ap-step-message">{step.message}</span>
            {step.error === undefined ? null : <span className="ap-error">{step.error.message}</span>}
          </li>
        ))}
      </ol>
      {isRunning ? (
        <button type="button" className="danger" disabled={isStopping} onClick={onCancel}>
          {isStopping ? 'Stopping…' : `Cancel ${name.toLowerCase()}`}
        </button>
      ) : null}
    </div>
  );
}
