import type { AsideView } from '@catalyst/protocol';
import { formatCost } from '../base/format.ts';
import { MarkdownText } from '../transcript/Markdown.tsx';

/** The asides, oldest first: each question, then Claude's answer (markdown), its cost and time, or the failure. */
export function AsideThread({ views }: { views: readonly AsideView[] }) {
  if (views.length === 0) return null;
  return (
    <ol className="aside-thread" aria-label="Asides asked" aria-live="polite">
      {views.map((view) => (
        <li key={view.id} className="aside-item">
          <p className="aside-question">
            <span className="visually-hidden">You asked aside: </span>
            {view.question}
          </p>
          <AsideEnding view={view} />
        </li>
      ))}
    </ol>
  );
}

function AsideEnding({ view }: { view: AsideView }) {
  switch (view.state) {
    case 'asking':
      return <p className="hint aside-waiting">Claude is answering aside ({view.model})…</p>;
    case 'answered':
      return (
        <div className="aside-answer">
          <MarkdownText text={view.answer ?? ''} />
          <p className="hint aside-meta">{describeCost(view)}</p>
        </div>
      );
    case 'failed':
      return <p className="aside-error">No answer: {view.error?.message ?? 'the aside failed.'}</p>;
  }
}

function describeCost(view: AsideView): string {
  const parts = [view.model];
  if (view.costUsd !== undefined) parts.push(formatCost(view.costUsd));
  if (view.durationMs !== undefined) parts.push(`${(view.durationMs / 1000).toFixed(1)} s`);
  return parts.join(' · ');
}
