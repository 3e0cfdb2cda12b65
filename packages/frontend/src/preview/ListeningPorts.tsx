import type { ListeningPort } from '@catalyst/protocol';
import { useId, useState } from 'react';
import { api, describeError } from '../app/api.ts';
import { useFetched } from '../app/use-fetched.ts';
import { describePortSource, PORTS_POLL_MS } from './preview-text.ts';
import { useTicker } from './use-ticker.ts';

const BLOCKED = 'The browser blocked the new tab. Allow pop-ups for Catalyst, then try again.';

/**
 * The ports the idea's processes listen on, on its host (a running build's dev server, the preview), looked at
 * again every few seconds, each with a way to open it. Its link comes from the server after the click, so the tab
 * is opened during the click (a popup blocker lets that one through) and sent to the link once it is there.
 */
export function ListeningPorts({ ideaId }: { ideaId: string }) {
  const headingId = useId();
  const tick = useTicker(PORTS_POLL_MS);
  const ports = useFetched(String(tick), () => api.listeningPorts(ideaId), { keepPrevious: true });
  const [error, setError] = useState<string>();
  const [openingPort, setOpeningPort] = useState<number>();

  const open = (port: number) => {
    setError(undefined);
    const tab = window.open('about:blank', '_blank');
    if (tab === null) {
      setError(BLOCKED);
      return;
    }
    // What `noopener` does for a link: the preview gets no handle on this page.
    tab.opener = null;
    setOpeningPort(port);
    api.previewPortLink(ideaId, port).then(
      (link) => {
        tab.location.replace(link.url);
        setOpeningPort(undefined);
      },
      (caught: unknown) => {
        tab.close();
        setError(describeError(caught));
        setOpeningPort(undefined);
      },
    );
  };

  return (
    <section className="preview-ports" aria-labelledby={headingId} data-testid="preview-ports">
      <h3 id={headingId}>Listening ports</h3>
      {ports.kind === 'loading' ? <p className="muted">Looking for ports…</p> : null}
      {ports.kind === 'failed' ? (
        <p className="form-error" role="alert">
          {ports.message}
        </p>
      ) : null}
      {ports.kind === 'loaded' ? (
        <PortList ports={ports.value} openingPort={openingPort} onOpen={open} />
      ) : null}
      {error === undefined ? null : (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}

interface PortListProps {
  ports: readonly ListeningPort[];
  openingPort: number | undefined;
  onOpen: (port: number) => void;
}

function PortList({ ports, openingPort, onOpen }: PortListProps) {
  if (ports.length === 0) {
    return <p className="muted">None of the idea’s processes listens on a port on its host.</p>;
  }
  return (
    <ul className="preview-port-list">
      {ports.map(({ port, source }) => (
        <li key={`${source} ${String(port)}`}>
          <span className="preview-port-number">{port}</span>{' '}
          <span className="muted">{describePortSource(source)}</span>{' '}
          <button
            type="button"
            aria-label={`Open port ${String(port)}`}
            disabled={openingPort === port}
            onClick={() => {
              onOpen(port);
            }}
          >
            {openingPort === port ? 'Opening…' : 'Open'}
          </button>
        </li>
      ))}
    </ul>
  );
}
