import {
  IDEA_DESCRIPTION_MAX,
  IDEA_TITLE_MAX,
  spentUsd,
  type HostHealthView,
  type IdeaStatus,
  type IdeaView,
} from '@catalyst/protocol';
import { useState, type ReactNode, type SyntheticEvent } from 'react';
import { api, describeError } from '../base/api.ts';
import { DeleteIdeaDialog } from './DeleteIdeaDialog.tsx';
import { formatCost } from '../base/format.ts';
import { IdeaMenu } from './IdeaMenu.tsx';
import { navigate } from '../base/router.ts';
import { StatusBadge } from './StatusBadge.tsx';
import { useIsWide } from '../workspace/use-workspace-tab.ts';

interface IdeaHeaderProps {
  ideaId: string;
  idea: IdeaView | undefined;
  host: HostHealthView | undefined;
  /** The newest `idea:status` from the live stream: newer than the last fetched meta. */
  liveStatus: IdeaStatus | undefined;
  sessionId: string | undefined;
  running: boolean;
  onChanged: (idea: IdeaView) => void;
  /** More controls at the end of the idea's actions ("Notify me"). */
  actions?: ReactNode;
}

export function IdeaHeader(props: IdeaHeaderProps) {
  const { idea, host, running } = props;
  const meta = idea?.meta;
  const [isEditing, setIsEditing] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const status = props.liveStatus ?? meta?.status;
  const isWide = useIsWide();

  return (
    <header className="idea-header">
      <nav className="breadcrumb">
        <a
          href="/"
          className="nav-link"
          onClick={(event) => {
            event.preventDefault();
            navigate('/');
          }}
        >
          ← Ideas
        </a>
      </nav>
      <div className="idea-title-row">
        <h1>{meta?.title ?? 'Loading…'}</h1>
        {status === undefined ? null : <StatusBadge status={status} />}
      </div>
      <IdeaMore isFolded={!isWide}>
        {meta?.description ? <p className="idea-description">{meta.description}</p> : null}
        <dl className="idea-facts">
          <div>
            <dt>Session</dt>
            <dd title={props.sessionId}>
              {props.sessionId === undefined ? 'not started' : props.sessionId.slice(0, 8)}
            </dd>
          </div>
          <div>
            <dt>Cost</dt>
            <dd>
              {meta === undefined
                ? '…'
                : `${formatCost(spentUsd(meta))}${meta.budgetUsd === undefined ? '' : ` of ${formatCost(meta.budgetUsd)}`}`}
            </dd>
          </div>
          <div>
            <dt>Host</dt>
            <dd>
              <HostHealth name={idea?.host} host={host} />
            </dd>
          </div>
        </dl>
      </IdeaMore>
      <div className="actions idea-actions">
        <IdeaMenu>
          {(close) => (
            <>
              <button
                type="button"
                aria-expanded={isEditing}
                onClick={() => {
                  close();
                  setIsEditing((editing) => !editing);
                }}
              >
                Edit idea
              </button>
              {props.actions}
              {/* Last and set apart (issue 40): never where a tab or a harmless action was a moment ago. */}
              <div className="idea-menu__danger">
                <button
                  type="button"
                  className="danger"
                  disabled={running}
                  title={running ? 'Cancel the run before deleting' : undefined}
                  onClick={() => {
                    close();
                    setDeleting(true);
                  }}
                >
                  Delete idea
                </button>
              </div>
            </>
          )}
        </IdeaMenu>
      </div>
      {isEditing && idea !== undefined && meta !== undefined ? (
        <EditForm
          idea={idea}
          onDone={(updated) => {
            if (updated) props.onChanged(updated);
            setIsEditing(false);
          }}
        />
      ) : null}
      {deleting ? (
        <DeleteIdeaDialog
          ideaId={props.ideaId}
          title={meta?.title ?? props.ideaId}
          onDeleted={() => {
            navigate('/');
          }}
          onClose={() => {
            setDeleting(false);
          }}
        />
      ) : null}
    </header>
  );
}

/**
 * The description and the facts: on a narrow screen folded behind one line (issue 40), so the conversation gets
 * the room; a host in trouble shows in the transcript's own notice (HostNotReady) either way.
 */
function IdeaMore({ isFolded, children }: { isFolded: boolean; children: ReactNode }) {
  if (!isFolded) return <>{children}</>;
  return (
    <details className="idea-more">
      <summary>Details: session, cost, host</summary>
      {children}
    </details>
  );
}

function HostHealth({ name, host }: { name: string | undefined; host: HostHealthView | undefined }) {
  if (name === undefined) return <>…</>;
  if (host === undefined) return <>{name}</>;
  if (!host.reachable) {
    return (
      <span className="health health-bad" title={host.error}>
        {name}: unreachable
      </span>
    );
  }
  const preflight = host.preflight;
  const problems = preflight?.problems ?? [];
  if (preflight?.claudePath === undefined || problems.length > 0) {
    return (
      <span className="health health-bad" title={problems.join('\n')}>
        {name}: {preflight?.claudePath === undefined ? 'claude not found' : problems[0]}
      </span>
    );
  }
  return (
    <span className="health health-ok" title={preflight.claudePath}>
      {name}: claude {preflight.version?.split(' ')[0] ?? 'found'}
    </span>
  );
}

function EditForm({ idea, onDone }: { idea: IdeaView; onDone: (updated?: IdeaView) => void }) {
  const [title, setTitle] = useState(idea.meta?.title ?? '');
  const [description, setDescription] = useState(idea.meta?.description ?? '');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: SyntheticEvent) => {
    event.preventDefault();
    setBusy(true);
    try {
      onDone(await api.updateIdea(idea.id, { title: title.trim(), description }));
    } catch (caught) {
      setError(describeError(caught));
      setBusy(false);
    }
  };

  return (
    <form className="panel" aria-label="Edit idea" onSubmit={(event) => void submit(event)}>
      <label htmlFor="edit-title">Title</label>
      <input
        id="edit-title"
        value={title}
        required
        maxLength={IDEA_TITLE_MAX}
        onChange={(event) => {
          setTitle(event.target.value);
        }}
      />
      <label htmlFor="edit-description">Description</label>
      <textarea
        id="edit-description"
        value={description}
        rows={4}
        maxLength={IDEA_DESCRIPTION_MAX}
        onChange={(event) => {
          setDescription(event.target.value);
        }}
      />
      {error === undefined ? null : (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          Save
        </button>
        <button
          type="button"
          onClick={() => {
            onDone();
          }}
        >
          Cancel
        </button>
      </div>
    </form>
  );
}
