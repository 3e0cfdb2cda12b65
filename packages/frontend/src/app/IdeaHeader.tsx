import {
  IDEA_DESCRIPTION_MAX,
  IDEA_TITLE_MAX,
  spentUsd,
  type HostHealthView,
  type IdeaStatus,
  type IdeaView,
  type QuestionPolicy,
  type PermissionPolicy,
} from '@catalyst/protocol';
import { useState, type SyntheticEvent } from 'react';
import { api, describeError } from './api.ts';
import { DeleteIdeaDialog } from './DeleteIdeaDialog.tsx';
import { formatCost } from './format.ts';
import { navigate } from './router.ts';
import { StatusBadge } from './StatusBadge.tsx';

interface IdeaHeaderProps {
  ideaId: string;
  idea: IdeaView | undefined;
  host: HostHealthView | undefined;
  /** The newest `idea:status` from the live stream: newer than the last fetched meta. */
  liveStatus: IdeaStatus | undefined;
  sessionId: string | undefined;
  running: boolean;
  onChanged: (idea: IdeaView) => void;
}

type Panel = 'none' | 'edit' | 'settings';

export function IdeaHeader(props: IdeaHeaderProps) {
  const { idea, host, running } = props;
  const meta = idea?.meta;
  const [panel, setPanel] = useState<Panel>('none');
  const [deleting, setDeleting] = useState(false);
  const toggle = (next: Panel) => {
    setPanel((current) => (current === next ? 'none' : next));
  };
  const status = props.liveStatus ?? meta?.status;

  return (
    <header className="idea-header">
      <nav className="breadcrumb">
        <a
          href="/"
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
      <div className="actions idea-actions">
        <button
          type="button"
          aria-expanded={panel === 'edit'}
          onClick={() => {
            toggle('edit');
          }}
        >
          Edit idea
        </button>
        <button
          type="button"
          aria-expanded={panel === 'settings'}
          onClick={() => {
            toggle('settings');
          }}
        >
          Settings
        </button>
        <button
          type="button"
          className="danger"
          disabled={running}
          title={running ? 'Cancel the run before deleting' : undefined}
          onClick={() => {
            setDeleting(true);
          }}
        >
          Delete idea
        </button>
      </div>
      {panel === 'edit' && idea !== undefined && meta !== undefined ? (
        <EditForm
          idea={idea}
          onDone={(updated) => {
            if (updated) props.onChanged(updated);
            setPanel('none');
          }}
        />
      ) : null}
      {panel === 'settings' && idea !== undefined && meta !== undefined ? (
        <SettingsPanel idea={idea} onChanged={props.onChanged} />
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

const QUESTION_POLICIES: { value: QuestionPolicy; label: string }[] = [
  { value: 'human', label: 'A person answers' },
  { value: 'auto', label: 'A small model answers' },
  { value: 'human_then_auto', label: 'A person, then the model after a wait' },
];
const PERMISSION_POLICIES: { value: PermissionPolicy; label: string }[] = [
  { value: 'auto', label: 'Build may use every tool' },
  { value: 'ask', label: 'Ask me before each tool call' },
];

function SettingsPanel({ idea, onChanged }: { idea: IdeaView; onChanged: (idea: IdeaView) => void }) {
  const [state, setState] = useState<
    { kind: 'idle' | 'saving' | 'saved' } | { kind: 'error'; message: string }
  >({
    kind: 'idle',
  });
  const save = async (body: {
    questionPolicy?: QuestionPolicy;
    permissionPolicy?: PermissionPolicy;
    budgetUsd?: number | null;
  }) => {
    setState({ kind: 'saving' });
    try {
      onChanged(await api.updateIdea(idea.id, body));
      setState({ kind: 'saved' });
    } catch (caught) {
      setState({ kind: 'error', message: describeError(caught) });
    }
  };
  const meta = idea.meta;
  if (meta === undefined) return null;
  return (
    <section className="panel settings" aria-label="Settings">
      <PolicySelect
        id="question-policy"
        label="Question policy"
        value={meta.questionPolicy}
        choices={QUESTION_POLICIES}
        onChoose={(questionPolicy) => void save({ questionPolicy })}
      />
      <p className="hint">Who answers when Claude asks a question during a run.</p>
      <PolicySelect
        id="permission-policy"
        label="Permission policy"
        value={meta.permissionPolicy}
        choices={PERMISSION_POLICIES}
        onChoose={(permissionPolicy) => void save({ permissionPolicy })}
      />
      <p className="hint">
        Whether a build asks you before it writes files or runs commands. Applies from the next run.
      </p>
      <BudgetField
        budgetUsd={meta.budgetUsd}
        onSave={(budgetUsd) => void save({ budgetUsd })}
        onInvalid={(message) => {
          setState({ kind: 'error', message });
        }}
      />
      <p className="hint">
        What this idea may spend in all, Claude and the answering model. No run starts once it is spent, and
        Claude stops itself when it gets there. Empty: no limit.
      </p>
      <p className="muted" role="status">
        {state.kind === 'saving' ? 'Saving…' : state.kind === 'saved' ? 'Saved.' : ''}
      </p>
      {state.kind === 'error' ? (
        <p className="form-error" role="alert">
          {state.message}
        </p>
      ) : null}
    </section>
  );
}

interface PolicySelectProps<T extends string> {
  id: string;
  label: string;
  value: T;
  choices: readonly { value: T; label: string }[];
  onChoose: (value: T) => void;
}

/** A labelled select of one policy; only a value it offers is ever chosen. */
function PolicySelect<T extends string>({ id, label, value, choices, onChoose }: PolicySelectProps<T>) {
  return (
    <>
      <label htmlFor={id}>{label}</label>
      <select
        id={id}
        value={value}
        onChange={(event) => {
          const chosen = choices.find((choice) => choice.value === event.target.value)?.value;
          if (chosen) onChoose(chosen);
        }}
      >
        {choices.map((choice) => (
          <option key={choice.value} value={choice.value}>
            {choice.label}
          </option>
        ))}
      </select>
    </>
  );
}

/** The idea's budget in USD: a number, or empty for none; saved with its own button. */
function BudgetField(props: {
  budgetUsd: number | undefined;
  onSave: (budgetUsd: number | null) => void;
  onInvalid: (message: string) => void;
}) {
  const [text, setText] = useState(props.budgetUsd === undefined ? '' : String(props.budgetUsd));
  return (
    <form
      className="budget"
      aria-label="Budget"
      onSubmit={(event) => {
        event.preventDefault();
        const trimmed = text.trim();
        if (trimmed === '') {
          props.onSave(null);
          return;
        }
        const value = Number(trimmed);
        if (!Number.isFinite(value) || value <= 0) {
          props.onInvalid('The budget must be an amount in USD above 0, or empty for none.');
          return;
        }
        props.onSave(value);
      }}
    >
      <label htmlFor="budget-usd">Budget (USD)</label>
      <input
        id="budget-usd"
        type="number"
        inputMode="decimal"
        min="0"
        step="any"
        value={text}
        onChange={(event) => {
          setText(event.target.value);
        }}
      />
      <button type="submit">Save budget</button>
    </form>
  );
}
