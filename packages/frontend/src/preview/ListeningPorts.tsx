import type { ListeningPort } from '@catalyst/protocol';
import { useId } from 'react';
import { api } from '../base/api.ts';
import { describePortSource, PORTS_POLL_MS } from './preview-text.ts';
import { usePolled } from './use-polled.ts';
import { useTabOpener } from './use-tab-opener.ts';

/**
 * The ports the idea's processes listen on, on its host (a running build's dev server, the preview), looked at
 * again a few seconds after each answer (each look runs a command on the host, which can take longer than that),
 * each with a way to open it in a tab of its own.
 */
interface ListeningPortsProps {
  ideaId: string;
  /** The port a starting preview waits for (null when it waits for none). */
  waitingOn: number | null;
  /** Makes the preview use this port instead (issue 31). */
  onUsePort: (port: number) => void;
}

export function ListeningPorts({ ideaId, waitingOn, onUsePort }: ListeningPortsProps) {
  const headingId = useId();
  const ports = usePolled(ideaId, () => api.listeningPorts(ideaId), PORTS_POLL_MS);
  const tabs = useTabOpener<number>();

  const open = (port: number) => {
    void tabs.open(port, () => api.previewPortLink(ideaId, port));
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
        <OtherPortHint ports={ports.value} waitingOn={waitingOn} onUsePort={onUsePort} />
      ) : null}
      {ports.kind === 'loaded' ? (
        <PortList ports={ports.value} openingPort={tabs.opening} onOpen={open} />
      ) : null}
      {tabs.error === undefined ? null : (
        <p className="form-error" role="alert">
          {tabs.error}
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

/**
 * A preview waiting on a port nothing listens on, while its own command listens on another (issue 31): the
 * person is told, and offered that port, rather than left waiting.
 */
function OtherPortHint({
  ports,
  waitingOn,
  onUsePort,
}: {
  ports: readonly ListeningPort[];
  waitingOn: number | null;
  onUsePort: (port: number) => void;
}) {
  if (waitingOn === null || ports.some(({ port }) => port === waitingOn)) return null;
  const other = ports.find(({ source }) => source === 'preview');
  if (other === undefined) return null;
  return (
    <p className="notice" role="status">
      {`Your command listens on ${String(other.port)}, not on ${String(waitingOn)}: use it?`}{' '}
      <button
        type="button"
        onClick={() => {
          onUsePort(other.port);
        }}
      >
        Use port {other.port}
      </button>
    </p>
  );
}
