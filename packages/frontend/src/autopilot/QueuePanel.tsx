import type { AutopilotStepView, AutopilotView, RunMode } from '@catalyst/protocol';
import { useId, useState } from 'react';
import { api, describeError } from '../base/api.ts';
import { UsdInput } from '../base/UsdInput.tsx';
import '../app/inline-form.css';

interface QueuePanelProps {
  ideaId: string;
  /** The idea's queue: its running or paused autopilot (of either kind); nothing shows without one. */
  view: AutopilotView | undefined;
  /** A view an action returned: shown at once, before the history's event brings it again. */
  onChanged: (view: AutopilotView | null) => void;
}

/**
 * The queue of next messages (issue 30), under the transcript: what waits to be sent once Claude is idle, each
 * editable, movable, removable or sent now; and, when the queue waits for a person (a budget reached, a step that
 * failed or was cancelled), why, with what lets it go on.
 */
export function QueuePanel({ ideaId, view, onChanged }: QueuePanelProps) {
  const [error, setError] = useState<string>();
  const [isBusy, setIsBusy] = useState(false);
  const headingId = useId();
  if (view === undefined || (view.state !== 'running' && view.state !== 'paused')) return null;
  const waiting = view.steps.filter((step) => step.state === 'pending' && step.runId === undefined);
  if (waiting.length === 0 && view.state !== 'paused') return null;

  const act = (action: () => Promise<AutopilotView | null>) => {
    setIsBusy(true);
    setError(undefined);
    action()
      .then(onChanged, (caught: unknown) => {
        setError(describeError(caught));
      })
      .finally(() => {
        setIsBusy(false);
      });
  };

  return (
    <section className="panel queue" aria-labelledby={headingId}>
      <h2 id={headingId}>
        {view.kind === 'autopilot' ? 'Autopilot: next steps' : 'Queued messages'}{' '}
        <span className="hint">({waiting.length === 1 ? '1 waits' : `${String(waiting.length)} wait`})</span>
      </h2>
      {view.state === 'paused' && view.paused !== undefined ? (
        <PausedNotice
          view={view}
          isBusy={isBusy}
          onResume={(oneMoreStep) => {
            act(() => api.resumeQueue(ideaId, oneMoreStep));
          }}
          onRaise={(maxBudgetUsd) => {
            act(() => api.setQueueBudget(ideaId, maxBudgetUsd));
          }}
          onClear={() => {
            act(() => api.clearQueue(ideaId));
          }}
        />
      ) : (
        <p className="hint">Sent in this order, each once Claude is idle.</p>
      )}
      <ol className="queue-steps">
        {waiting.map((step, index) => (
          <QueuedStep
            key={step.id}
            step={step}
            index={index}
            count={waiting.length}
            isBusy={isBusy}
            onSave={(mode, message) => {
              act(() => api.updateQueuedStep(ideaId, step.id, { mode, message }));
            }}
            onMove={(position) => {
              act(() => api.updateQueuedStep(ideaId, step.id, { position }));
            }}
            onRemove={() => {
              act(() => api.removeQueuedStep(ideaId, step.id));
            }}
            onSendNow={() => {
              act(() => api.sendQueuedStepNow(ideaId, step.id));
            }}
          />
        ))}
      </ol>
      {error === undefined ? null : (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}

function PausedNotice(props: {
  view: AutopilotView;
  isBusy: boolean;
  onResume: (oneMoreStep: boolean) => void;
  onRaise: (maxBudgetUsd: number) => void;
  onClear: () => void;
}) {
  const { view, isBusy } = props;
  const [budget, setBudget] = useState(() => String(suggestedBudget(view)));
  const budgetId = useId();
  const isBudget = view.paused?.reason === 'budget';
  const hasOwnBudget = view.maxBudgetUsd !== undefined;
  return (
    <div className="queue-paused" role="status">
      <p>
        <strong>Paused.</strong> {view.paused?.message}
      </p>
      <div className="actions">
        {isBudget && hasOwnBudget ? (
          <form
            className="inline-form"
            onSubmit={(event) => {
              event.preventDefault();
              const value = Number(budget);
              if (Number.isFinite(value) && value > 0) props.onRaise(value);
            }}
          >
            <label htmlFor={budgetId}>Budget ($)</label>
            <UsdInput id={budgetId} value={budget} onChange={setBudget} />
            <button type="submit" disabled={isBusy}>
              Raise and go on
            </button>
          </form>
        ) : null}
        {isBudget ? (
          <button
            type="button"
            disabled={isBusy}
            onClick={() => {
              props.onResume(true);
            }}
          >
            Run one more step
          </button>
        ) : (
          <button
            type="button"
            disabled={isBusy}
            onClick={() => {
              props.onResume(false);
            }}
          >
            Go on
          </button>
        )}
        <button type="button" className="secondary" disabled={isBusy} onClick={props.onClear}>
          Clear the queue
        </button>
      </div>
    </div>
  );
}

/** Twice what was spent, at least a dollar more than the cap: a first suggestion a person changes at will. */
function suggestedBudget(view: AutopilotView): number {
  const cap = view.maxBudgetUsd ?? 0;
  return Math.round(Math.max(cap + 1, view.costUsd * 2) * 100) / 100;
}

function QueuedStep(props: {
  step: AutopilotStepView;
  index: number;
  count: number;
  isBusy: boolean;
  onSave: (mode: RunMode, message: string) => void;
  onMove: (position: number) => void;
  onRemove: () => void;
  onSendNow: () => void;
}) {
  const { step, index, count, isBusy } = props;
  const [editing, setEditing] = useState<{ mode: RunMode; message: string }>();
  const editId = useId();
  const label = `Queued message ${String(index + 1)}`;
  if (editing !== undefined) {
    return (
      <li className="queue-step editing">
        <form
          onSubmit={(event) => {
            event.preventDefault();
            if (editing.message.trim() === '') return;
            props.onSave(editing.mode, editing.message);
            setEditing(undefined);
          }}
        >
          <label htmlFor={editId}>{label}</label>
          <textarea
            id={editId}
            value={editing.message}
            rows={3}
            onChange={(event) => {
              setEditing({ ...editing, message: event.target.value });
            }}
          />
          <div className="actions">
            <select
              aria-label={`${label}: mode`}
              value={editing.mode}
              onChange={(event) => {
                setEditing({ ...editing, mode: event.target.value === 'build' ? 'build' : 'chat' });
              }}
            >
              <option value="chat">Chat</option>
              <option value="build">Build</option>
            </select>
            <button type="submit" disabled={isBusy}>
              Save
            </button>
            <button
              type="button"
              className="secondary"
              onClick={() => {
                setEditing(undefined);
              }}
            >
              Cancel
            </button>
          </div>
        </form>
      </li>
    );
  }
  return (
    <li className="queue-step" aria-label={label}>
      <span className={`mode-badge mode-${step.mode}`}>{step.mode === 'build' ? 'Build' : 'Chat'}</span>
      <p className="queue-message">{step.message}</p>
      <div className="actions compact">
        <button
          type="button"
          aria-label={`Edit ${label.toLowerCase()}`}
          disabled={isBusy}
          onClick={() => {
            setEditing({ mode: step.mode, message: step.message });
          }}
        >
          Edit
        </button>
        <button
          type="button"
          aria-label={`Move ${label.toLowerCase()} up`}
          disabled={isBusy || index === 0}
          onClick={() => {
            props.onMove(index - 1);
          }}
        >
          ↑
        </button>
        <button
          type="button"
          aria-label={`Move ${label.toLowerCase()} down`}
          disabled={isBusy || index === count - 1}
          onClick={() => {
            props.onMove(index + 1);
          }}
        >
          ↓
        </button>
        <button
          type="button"
          aria-label={`Send now: ${label.toLowerCase()}`}
          disabled={isBusy}
          onClick={props.onSendNow}
        >
          Send now
        </button>
        <button
          type="button"
          className="secondary"
          aria-label={`Remove ${label.toLowerCase()}`}
          disabled={isBusy}
          onClick={props.onRemove}
        >
          Remove
        </button>
      </div>
    </li>
  );
}
