import { describeRunSummary, type RunSummaryInput } from './run-summary-text.ts';

/** How a run ended, as one line closing it. */
export function RunSummary(props: RunSummaryInput) {
  return (
    <div className={`t-summary t-summary--${props.ended.outcome}`} role="note" aria-label="Run summary">
      {describeRunSummary(props)}
    </div>
  );
}
