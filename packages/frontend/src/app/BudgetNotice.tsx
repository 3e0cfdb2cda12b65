import { spentUsd, type IdeaView, type RunMode } from '@catalyst/protocol';
import { useId, useState } from 'react';
import { api, describeError } from '../base/api.ts';
import { formatCost } from '../base/format.ts';
import { UsdInput } from '../base/UsdInput.tsx';
import './inline-form.css';

/** The message a run stopped mid-way by its budget goes on with (as a paused queue's step does, server-side). */
export const CONTINUE_MESSAGE = 'Continue where you stopped.';

interface BudgetNoticeProps {
  idea: IdeaView;
  /**
   * Why the idea's budget is in the way: a message refused at the start, or a run the CLI stopped at the budget
   * mid-way (its mode: it goes on in that mode once raised).
   */
  blocked: { kind: 'refused' } | { kind: 'stopped'; mode: RunMode };
  onChanged: (idea: IdeaView) => void;
  /** After a raise, for a run stopped mid-way: sends the short "continue" message in its mode. */
  onContinue: (mode: RunMode) => void;
  onDismiss: () => void;
}

/**
 * The idea's own budget reached (issue 30): instead of a bare refusal, the page asks. It says what was spent of what
 * cap and offers to raise it (or remove it); a run stopped mid-way then goes on where it stopped.
 */
export function BudgetNotice({ idea, blocked, onChanged, onContinue, onDismiss }: BudgetNoticeProps) {
  const meta = idea.meta;
  const spent = meta === undefined ? 0 : spentUsd(meta);
  const cap = meta?.budgetUsd;
  const [value, setValue] = useState(() =>
    String(Math.round(Math.max((cap ?? 0) * 2, spent + 1) * 100) / 100),
  );
  const [error, setError] = useState<string>();
  const [isBusy, setIsBusy] = useState(false);
  const inputId = useId();
  const headingId = useId();

  const raise = (budgetUsd: number | null) => {
    setIsBusy(true);
    setError(undefined);
    api.updateIdea(idea.id, { budgetUsd }).then(
      (changed) => {
        onChanged(changed);
        if (blocked.kind === 'stopped') onContinue(blocked.mode);
        onDismiss();
      },
      (caught: unknown) => {
        setError(describeError(caught));
        setIsBusy(false);
      },
    );
  };

  return (
    <section className="panel budget-notice" aria-labelledby={headingId}>
      <h2 id={headingId}>This idea has reached its budget</h2>
      <p role="alert">
        It has spent {formatCost(spent)}
        {cap === undefined ? '' : ` of its ${formatCost(cap)} budget`}.{' '}
        {blocked.kind === 'stopped'
          ? 'Claude stopped mid-way; raise the budget and it goes on where it stopped.'
          : 'Raise the budget to send your message (it is still in the box).'}
      </p>
      <form
        className="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          const budget = Number(value);
          if (!Number.isFinite(budget) || budget <= spent) {
            setError(`Give an amount above what was spent (${formatCost(spent)}).`);
            return;
          }
          raise(budget);
        }}
      >
        <label htmlFor={inputId}>New budget ($)</label>
        <UsdInput id={inputId} value={value} onChange={setValue} />
        <button type="submit" className="primary" disabled={isBusy}>
          {blocked.kind === 'stopped' ? 'Raise and go on' : 'Raise budget'}
        </button>
        <button
          type="button"
          disabled={isBusy}
          onClick={() => {
            raise(null);
          }}
        >
          Remove the budget
        </button>
        <button type="button" className="secondary" onClick={onDismiss}>
          Not now
        </button>
      </form>
      {error === undefined ? null : <p className="form-error">{error}</p>}
    </section>
  );
}
