import { useEffect, useState } from 'react';
import { api } from '../base/api.ts';
import { AppLink } from '../base/AppLink.tsx';
import { useFetched } from '../base/use-fetched.ts';
import { AddHostForm } from './AddHostForm.tsx';
import { HostCard } from './HostCard.tsx';
import './hosts.css';

/**
 * The hosts ideas run on (issue 28): each with whether it answers and where claude is, a check step by step, and
 * "Add a host" for a VM `ssh` already reaches. A host just added is checked at once.
 */
export function HostsPage() {
  const [version, setVersion] = useState(0);
  const hosts = useFetched(`hosts-${String(version)}`, () => api.hosts(), { keepPrevious: true });
  // `/hosts?add` (the first screen's "Add your VM"): the form is open at once.
  const [isAdding, setIsAdding] = useState(() => new URLSearchParams(location.search).has('add'));
  const [added, setAdded] = useState<string>();

  useEffect(() => {
    document.title = 'Hosts · Catalyst';
  }, []);
  const reload = () => {
    setVersion((old) => old + 1);
  };
  const listed = hosts.kind === 'loaded' ? hosts.value : [];

  return (
    <main className="page hosts-page">
      <nav className="breadcrumb" aria-label="Breadcrumb">
        <AppLink href="/" className="nav-link">
          ← Ideas
        </AppLink>
      </nav>
      <header className="page-header">
        <h1>Hosts</h1>
        {isAdding ? null : (
          <button
            type="button"
            className="primary"
            onClick={() => {
              setIsAdding(true);
            }}
          >
            Add a host
          </button>
        )}
      </header>
      <p className="muted">
        The machines ideas run on. Catalyst reaches each over SSH and runs claude there.
      </p>
      {isAdding ? (
        <AddHostForm
          takenNames={listed.map((host) => host.name)}
          onAdded={(name) => {
            setIsAdding(false);
            setAdded(name);
            reload();
          }}
          onCancel={() => {
            setIsAdding(false);
          }}
        />
      ) : null}
      {hosts.kind === 'failed' ? (
        <p className="form-error" role="alert">
          {hosts.message}
        </p>
      ) : null}
      {hosts.kind === 'loading' ? (
        <p className="muted" role="status">
          Asking each host…
        </p>
      ) : (
        <ul className="host-list">
          {listed.map((host) => (
            <HostCard key={host.name} host={host} checkAtOnce={host.name === added} onChanged={reload} />
          ))}
        </ul>
      )}
    </main>
  );
}
