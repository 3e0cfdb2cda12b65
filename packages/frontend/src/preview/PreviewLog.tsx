import type { PreviewLogResponse, PreviewView } from '@catalyst/protocol';
import { useEffect, useRef, useState } from 'react';
import { api } from '../base/api.ts';
import { useFetched, type Fetched } from '../base/use-fetched.ts';

interface PreviewLogProps {
  ideaId: string;
  view: PreviewView;
  /** Goes up with every view received: while the preview is up, the log is asked for again with it. */
  version: number;
}

/**
 * What the preview's command printed, asked for only while this is open: again with every poll while the
 * preview starts or runs, and once per state otherwise (it does not grow then).
 */
export function PreviewLog({ ideaId, view, version }: PreviewLogProps) {
  const [isOpen, setIsOpen] = useState(false);
  const isUp = view.state === 'starting' || view.state === 'running';
  const key = !isOpen ? undefined : isUp ? `up ${version}` : `${view.state} ${view.since ?? ''}`;
  const log = useFetched(key, () => api.previewLog(ideaId), { keepPrevious: true });
  return (
    <details
      className="preview-log"
      data-testid="preview-log"
      onToggle={(event) => {
        setIsOpen(event.currentTarget.open);
      }}
    >
      <summary>Preview log</summary>
      {isOpen ? <LogText log={log} /> : null}
    </details>
  );
}

function LogText({ log }: { log: Fetched<PreviewLogResponse> }) {
  const ref = useRef<HTMLPreElement>(null);
  const text = log.kind === 'loaded' ? log.value.text : undefined;
  // The newest lines are what matter: keep them in sight as the log grows.
  useEffect(() => {
    const pre = ref.current;
    if (pre !== null) pre.scrollTop = pre.scrollHeight;
  }, [text]);
  switch (log.kind) {
    case 'loading':
      return <p className="muted">Loading…</p>;
    case 'failed':
      return (
        <p className="form-error" role="alert">
          {log.message}
        </p>
      );
    case 'loaded':
      return (
        <>
          {log.value.isCut ? <p className="hint">Only the newest 256 KiB are kept.</p> : null}
          {log.value.text === '' ? (
            <p className="muted">Nothing printed yet.</p>
          ) : (
            <pre ref={ref} className="preview-pre" tabIndex={0} aria-label="Preview log">
              {log.value.text}
            </pre>
          )}
        </>
      );
  }
}
