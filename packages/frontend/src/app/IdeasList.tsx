import { IDEA_DESCRIPTION_MAX, IDEA_TITLE_MAX, type IdeaView } from '@catalyst/protocol';
import { useCallback, useEffect, useRef, useState, type SyntheticEvent } from 'react';
import { AccountActions } from '../sessions/AccountActions.tsx';
import { api, describeError } from '../base/api.ts';
import { AppLink } from '../base/AppLink.tsx';
import { DefaultHostStatus } from './DefaultHostStatus.tsx';
import { DeleteIdeaDialog } from './DeleteIdeaDialog.tsx';
import { formatRelative } from '../base/format.ts';
import {
  describeMadeElsewhere,
  readShowMadeElsewhere,
  saveShowMadeElsewhere,
  splitMadeElsewhere,
} from './made-elsewhere.ts';
import { navigate } from '../base/router.ts';
import { StatusBadge } from './StatusBadge.tsx';
import { useFetched } from '../base/use-fetched.ts';

/** Every idea on every host, newest activity first, and a form to capture a new one. */
export function IdeasList() {
  const [ideas, setIdeas] = useState<IdeaView[]>();
  const [error, setError] = useState<string>();
  const [creating, setCreating] = useState(false);
  const [isShowingElsewhere, setIsShowingElsewhere] = useState(readShowMadeElsewhere);

  const load = useCallback(async () => {
    try {
      setIdeas(await api.listIdeas());
      setError(undefined);
    } catch (caught) {
      setError(describeError(caught));
    }
  }, []);

  useEffect(() => {
    document.title = 'Ideas · Catalyst';
    void load();
    // Statuses change while builds run elsewhere: refresh when the person comes back, and now and then.
    const onFocus = () => void load();
    addEventListener('focus', onFocus);
    const timer = setInterval(onFocus, 15_000);
    return () => {
      removeEventListener('focus', onFocus);
      clearInterval(timer);
    };
  }, [load]);

  // The API lists them newest activity first (docs/protocol.md).
  const { shown: listed, elsewhere } = splitMadeElsewhere(ideas ?? [], isShowingElsewhere);
  const toggleElsewhere = () => {
    saveShowMadeElsewhere(!isShowingElsewhere);
    setIsShowingElsewhere(!isShowingElsewhere);
  };

  return (
    <main className="page">
      <header className="page-header">
        <h1>Ideas</h1>
        {creating ? null : (
          <button
            type="button"
            className="primary"
            onClick={() => {
              setCreating(true);
            }}
          >
            New idea
          </button>
        )}
        <AppLink href="/hosts" className="nav-link">
          Hosts
        </AppLink>
        <AccountActions />
      </header>
      {creating ? (
        <NewIdeaForm
          onCancel={() => {
            setCreating(false);
          }}
        />
      ) : null}
      {error === undefined ? null : (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      {elsewhere.length === 0 ? null : (
        <div className="notice" role="note" aria-label="Ideas of another Catalyst">
          {elsewhere.map((line) => (
            <p key={line.host}>{describeMadeElsewhere(line)}</p>
          ))}
          <button type="button" onClick={toggleElsewhere}>
            {isShowingElsewhere ? 'Hide them' : 'Show them'}
          </button>
        </div>
      )}
      {ideas === undefined ? (
        error === undefined ? (
          <p className="muted">Loading…</p>
        ) : null
      ) : listed.length === 0 && elsewhere.length === 0 ? (
        <>
          <p className="empty">No ideas yet. Capture the first one with “New idea”.</p>
          <DefaultHostStatus />
        </>
      ) : (
        <ul className="idea-list">
          {listed.map((idea) => (
            <IdeaRow key={idea.id} idea={idea} onDeleted={() => void load()} />
          ))}
        </ul>
      )}
    </main>
  );
}

function IdeaRow({ idea, onDeleted }: { idea: IdeaView; onDeleted: () => void }) {
  const [deleting, setDeleting] = useState(false);
  const meta = idea.meta;
  const title = meta?.title ?? idea.id;
  const href = `/ideas/${idea.id}`;
  return (
    <li className="idea-row">
      <AppLink href={href} className="idea-link">
        {title}
      </AppLink>
      <StatusBadge status={idea.available && meta ? meta.status : 'unavailable'} />
      {idea.running ? <span className="running-dot">running</span> : null}
      <span className="idea-row-meta muted">
        {meta ? `${formatRelative(meta.updatedAt)} · ${idea.host}` : (idea.error ?? `on ${idea.host}`)}
        {idea.madeElsewhere === true ? ' · made by another Catalyst' : ''}
      </span>
      {meta?.description ? <p className="idea-row-description">{meta.description}</p> : null}
      {idea.broken === true ? (
        // Its page cannot open without a meta.json: the list is where such a folder is deleted.
        <button
          type="button"
          className="danger"
          onClick={() => {
            setDeleting(true);
          }}
        >
          Delete folder
        </button>
      ) : null}
      {deleting ? (
        <DeleteIdeaDialog
          ideaId={idea.id}
          title={title}
          onDeleted={() => {
            setDeleting(false);
            onDeleted();
          }}
          onClose={() => {
            setDeleting(false);
          }}
        />
      ) : null}
    </li>
  );
}

function NewIdeaForm({ onCancel }: { onCancel: () => void }) {
  const [title, setTitle] = useState('');
  const [description, setDescription] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  // Empty: the default host (the server's choice), also while the list of hosts is on its way.
  const [host, setHost] = useState('');
  const hosts = useFetched('hosts', () => api.hosts());
  const titleRef = useRef<HTMLInputElement>(null);

  useEffect(() => {
    titleRef.current?.focus();
  }, []);

  const submit = async (event: SyntheticEvent) => {
    event.preventDefault();
    if (title.trim() === '') {
      setError('Give the idea a title.');
      return;
    }
    setBusy(true);
    try {
      const idea = await api.createIdea({
        title: title.trim(),
        description,
        ...(host === '' ? {} : { host }),
      });
      navigate(`/ideas/${idea.id}`);
    } catch (caught) {
      setError(describeError(caught));
      setBusy(false);
    }
  };

  return (
    <form className="panel new-idea" aria-label="New idea" onSubmit={(event) => void submit(event)}>
      <label htmlFor="new-idea-title">Title</label>
      <input
        id="new-idea-title"
        ref={titleRef}
        value={title}
        maxLength={IDEA_TITLE_MAX}
        required
        onChange={(event) => {
          setTitle(event.target.value);
        }}
      />
      <label htmlFor="new-idea-description">Description</label>
      <textarea
        id="new-idea-description"
        value={description}
        maxLength={IDEA_DESCRIPTION_MAX}
        rows={4}
        placeholder="What is it, who is it for, what should it do?"
        onChange={(event) => {
          setDescription(event.target.value);
        }}
      />
      {hosts.kind === 'loaded' && hosts.value.length > 1 ? (
        <>
          <label htmlFor="new-idea-host">Host</label>
          <select
            id="new-idea-host"
            value={host}
            onChange={(event) => {
              setHost(event.target.value);
            }}
          >
            {hosts.value.map((known) => (
              <option key={known.name} value={known.isDefault ? '' : known.name}>
                {known.isDefault ? `${known.name} (default)` : known.name}
              </option>
            ))}
          </select>
        </>
      ) : null}
      {error === undefined ? null : (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          Create idea
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
