import {
  describeRunHint,
  describeRunSummary,
  runSummaryTone,
  type RunSummaryInput,
} from './run-summary-text.ts';

/** How a run ended, as one line closing it, and a next step when the fix is outside the page. */
export function RunSummary(props: RunSummaryInput) {
  const hint = describeRunHint(props);
  return (
    <div className={`t-summary t-summary--${runSummaryTone(props)}`} role="note" aria-label="Run summary">
      {describeRunSummary(props)}
      {hint === undefined ? null : <p className="t-summary__hint">{hint}</p>}
    </div>
  );
}
