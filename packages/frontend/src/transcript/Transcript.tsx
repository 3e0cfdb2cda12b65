import { useLayoutEffect, useMemo, useRef } from 'react';
import { ErrorBoundary } from '../ErrorBoundary.tsx';
import type { TranscriptActions } from './transcript-actions.ts';
import { isSameItem, TranscriptItemView } from './TranscriptItemView.tsx';
import { buildItems } from './transcript-items.ts';
import type { TranscriptState } from './transcript-state.ts';
import { useItemWindow } from './use-item-window.ts';
import { useStickToBottom } from './use-stick-to-bottom.ts';
import { RunOutcomesContext, runOutcomesOf } from './stopped-words.ts';
import { useScrollToAnchor } from './prompt-anchor.ts';

export type { TranscriptActions } from './transcript-actions.ts';

interface TranscriptProps {
  state: TranscriptState;
  actions: TranscriptActions;
  /** False while the history replays: the render window waits for it before it fixes its first item. */
  isLive?: boolean;
}

/** An idea's conversation with Claude, live: role="log", newest at the bottom. */
export function Transcript({ state, actions, isLive = true }: TranscriptProps): React.JSX.Element {
  const items = useMemo(() => buildItems(state), [state]);
  const outcomes = useMemo(() => runOutcomesOf(state.events), [state.events]);
  const stableActions = useStableActions(actions);
  const { ref, isAtBottom, scrollToBottom } = useStickToBottom<HTMLDivElement>(items);
  const { visible, hiddenCount, showEarlier } = useItemWindow(items, isLive);
  useScrollToAnchor(visible.length);
  return (
    <RunOutcomesContext.Provider value={outcomes}>
      <div className="t-transcript">
        <div ref={ref} className="t-log" role="log" aria-label="Transcript" tabIndex={0}>
          {items.length === 0 ? <p className="t-empty">Nothing here yet: send Claude a message.</p> : null}
          {hiddenCount === 0 ? null : (
            <button type="button" className="t-earlier" onClick={showEarlier}>
              Show earlier ({hiddenCount})
            </button>
          )}
          {visible.map((item) => (
            // One item that cannot be shown stays one line; the rest of the conversation is still there.
            <ErrorBoundary
              key={item.key}
              resetKey={item}
              isSameKey={isSameItem}
              fallback={<ItemFailed kind={item.kind} />}
            >
              <TranscriptItemView item={item} actions={stableActions} />
            </ErrorBoundary>
          ))}
        </div>
        {/* At the transcript's foot, inside it: it covers none of what is below (a queue, an aside, the composer). */}
        {isAtBottom ? null : <JumpButton onClick={scrollToBottom} />}
      </div>
    </RunOutcomesContext.Provider>
  );
}

function JumpButton({ onClick }: { onClick: () => void }) {
  return (
    <button type="button" className="t-jump" onClick={onClick}>
      Jump to latest
    </button>
  );
}

function ItemFailed({ kind }: { kind: string }) {
  return (
    <p className="t-item-failed" role="note">
      This part of the conversation ({kind}) could not be shown. It is kept in the idea’s history.
    </p>
  );
}

/**
 * One actions object for the transcript's lifetime that calls the latest props: a page that passes a new object
 * on every render would otherwise re-render every item.
 */
function useStableActions(actions: TranscriptActions): TranscriptActions {
  const latest = useRef(actions);
  useLayoutEffect(() => {
    latest.current = actions;
  });
  return useMemo(
    () => ({
      answer: (questionId, answers) => latest.current.answer(questionId, answers),
      dismiss: (questionId) => latest.current.dismiss(questionId),
      permission: (requestId, decision, remember) => latest.current.permission(requestId, decision, remember),
    }),
    [],
  );
}
