import { useMemo } from 'react';
import type { RelayEvent } from '@catalyst/protocol';
import { promptAnchor } from './prompt-anchor.ts';
import { DiffView } from './DiffView.tsx';
import { readFileChange, readKeyInput } from './tool-input.ts';
import type { TranscriptActions } from './transcript-actions.ts';
import { useParkedFocus } from './use-parked-focus.ts';
import { usePendingSubmit } from './use-pending-submit.ts';

type PermissionRequest = Extract<RelayEvent, { type: 'claude:permission_request' }>;
type PermissionClosed = Extract<RelayEvent, { type: 'claude:permission_closed' }>;

interface PermissionCardProps {
  request: PermissionRequest;
  closed: PermissionClosed | undefined;
  isRunEnded: boolean;
  actions: TranscriptActions;
  /** False inside the tool's own card, which shows the input already. */
  showInput?: boolean;
}

const closedWords: Record<PermissionClosed['reason'], string> = {
  allowed: 'Allowed',
  denied: 'Denied',
  withdrawn: 'Withdrawn by Claude',
  cancelled: 'Cancelled',
  timed_out: 'Timed out',
};

/** A tool call waiting for the person's allow or deny; shows what the tool would do, then what was decided. */
export function PermissionCard({
  request,
  closed,
  isRunEnded,
  actions,
  showInput = true,
}: PermissionCardProps) {
  const { isSubmitted, markSubmitted } = usePendingSubmit();
  const isClosed = closed !== undefined || isRunEnded;
  const canRemember = (request.suggestions?.length ?? 0) > 0;
  const focus = useParkedFocus<HTMLElement>(isClosed);
  const decide = (decision: 'allow' | 'deny', remember: boolean) => () => {
    if (actions.permission(request.requestId, decision, remember)) markSubmitted();
  };
  return (
    <section
      id={promptAnchor(request.seq)}
      className={isClosed ? 't-card t-permission t-card--closed' : 't-card t-permission'}
      aria-label={`Permission: ${request.toolName}`}
      {...focus}
    >
      <p className="t-card__title">
        {isClosed ? 'Claude asked to use ' : 'Claude wants to use '}
        <span className="t-tool__name">{request.toolName}</span>
      </p>
      {request.description === undefined ? null : (
        <p className="t-card__description">{request.description}</p>
      )}
      {showInput ? <PermissionInput toolName={request.toolName} input={request.input} /> : null}
      {isClosed ? (
        <p className="t-card__outcome">
          {closed === undefined ? 'Closed: the run ended' : closedWords[closed.reason]}
        </p>
      ) : (
        <div className="t-card__actions">
          <button
            type="button"
            className="t-button t-button--primary"
            disabled={isSubmitted}
            onClick={decide('allow', false)}
          >
            Allow
          </button>
          <button type="button" className="t-button" disabled={isSubmitted} onClick={decide('deny', false)}>
            Deny
          </button>
          {canRemember ? (
            <button type="button" className="t-button" disabled={isSubmitted} onClick={decide('allow', true)}>
              Allow and remember
            </button>
          ) : null}
          {isSubmitted ? <span className="t-card__status">Sending…</span> : null}
        </div>
      )}
    </section>
  );
}

function PermissionInput({ toolName, input }: { toolName: string; input: Record<string, unknown> }) {
  const change = useMemo(() => readFileChange(toolName, input), [toolName, input]);
  const json = useMemo(() => JSON.stringify(input, null, 2), [input]);
  const key = readKeyInput(input);
  return (
    <>
      {key === undefined ? null : <code className="t-tool__key">{key.value}</code>}
      {change === undefined ? (
        <pre className="t-pre t-card__input">{json}</pre>
      ) : (
        <DiffView change={change} />
      )}
    </>
  );
}
