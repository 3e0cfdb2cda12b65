import { memo } from 'react';
import { CheckpointLine } from '../checkpoints/CheckpointLine.tsx';
import { ClaudeText } from './ClaudeText.tsx';
import { ErrorLine } from './ErrorLine.tsx';
import { EventLine } from './EventLine.tsx';
import { PermissionCard } from './PermissionCard.tsx';
import { QuestionCard } from './QuestionCard.tsx';
import { RunSummary } from './RunSummary.tsx';
import { SessionNotice } from './SessionNotice.tsx';
import { ThinkingBlock } from './ThinkingBlock.tsx';
import { ToolCard } from './ToolCard.tsx';
import type { TranscriptActions } from './transcript-actions.ts';
import type { PromptItem, TranscriptItem } from './transcript-items.ts';
import { UserMessage } from './UserMessage.tsx';

interface ItemViewProps {
  item: TranscriptItem;
  actions: TranscriptActions;
}

function ItemView({ item, actions }: ItemViewProps) {
  if (!isTruncated(item)) return <ItemBody item={item} actions={actions} />;
  return (
    <>
      <ItemBody item={item} actions={actions} />
      <p className="t-truncated muted">
        Too large to show whole: the longest texts above were shortened (docs/protocol.md, “Event size”).
      </p>
    </>
  );
}

/** The server cut an event over its size bound (relay-events.ts `truncated`): the page says so. */
function isTruncated(item: TranscriptItem): boolean {
  switch (item.kind) {
    case 'tool':
      return item.use?.truncated === true || item.result?.truncated === true;
    case 'question':
      return item.question.truncated === true || item.answered?.truncated === true;
    case 'permission':
      return item.request.truncated === true;
    case 'user':
    case 'thinking':
    case 'event':
    case 'error':
    case 'notice':
      return item.event.truncated === true;
    case 'text':
    case 'summary':
      return false;
  }
}

function ItemBody({ item, actions }: ItemViewProps) {
  switch (item.kind) {
    case 'user':
      return <UserMessage event={item.event} />;
    case 'text':
      return <ClaudeText text={item.text} isStreaming={item.isStreaming} isSubagent={item.isSubagent} />;
    case 'thinking':
      return <ThinkingBlock thinking={item.event.thinking} />;
    case 'tool':
      return (
        <ToolCard
          use={item.use}
          result={item.result}
          isRunEnded={item.isRunEnded}
          inputShownByPrompt={item.prompt?.kind === 'question'}
          prompt={
            item.prompt === undefined ? null : <PromptView prompt={item.prompt} actions={actions} nested />
          }
        />
      );
    case 'event':
      return <EventLine event={item.event} />;
    case 'error':
      return <ErrorLine event={item.event} />;
    case 'notice':
      return <SessionNotice event={item.event} />;
    case 'question':
    case 'permission':
      return <PromptView prompt={item} actions={actions} nested={false} />;
    case 'summary':
      return (
        <>
          <RunSummary ended={item.ended} started={item.started} result={item.result} />
          {item.checkpoint === undefined ? null : <CheckpointLine checkpoint={item.checkpoint} />}
        </>
      );
  }
}

function PromptView({
  prompt,
  actions,
  nested,
}: {
  prompt: PromptItem;
  actions: TranscriptActions;
  /** Inside its tool's card, which already shows the input. */
  nested: boolean;
}) {
  return prompt.kind === 'question' ? (
    <QuestionCard
      question={prompt.question}
      answered={prompt.answered}
      closed={prompt.closed}
      isRunEnded={prompt.isRunEnded}
      actions={actions}
    />
  ) : (
    <PermissionCard
      request={prompt.request}
      closed={prompt.closed}
      isRunEnded={prompt.isRunEnded}
      actions={actions}
      showInput={!nested}
    />
  );
}

/**
 * buildItems makes new item objects on every event, but from the same event objects: an item whose fields are
 * all the same values is the same item, and its subtree is skipped. Thousands of items stay cheap to re-render.
 */
export const TranscriptItemView = memo(
  ItemView,
  (before, after) => before.actions === after.actions && isSameItem(before.item, after.item),
);

/** The same item: all its fields are the same values (a nested prompt compared the same way). */
export function isSameItem(a: TranscriptItem, b: TranscriptItem): boolean {
  return haveSameFields(a, b);
}

function haveSameFields(a: object, b: object): boolean {
  if (a === b) return true;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((key) => {
    const left: unknown = Reflect.get(a, key);
    const right: unknown = Reflect.get(b, key);
    // A tool card's nested prompt is rebuilt with the items: the same when its own fields are.
    if (
      key === 'prompt' &&
      typeof left === 'object' &&
      left !== null &&
      typeof right === 'object' &&
      right !== null
    )
      return haveSameFields(left, right);
    return left === right;
  });
}
