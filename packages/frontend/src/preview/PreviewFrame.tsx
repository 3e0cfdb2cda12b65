import type { FramingRefusal, PreviewView } from '@catalyst/protocol';
import { useEffect, useId, useState } from 'react';
import { api, describeError } from '../base/api.ts';
import { useTabOpener, type TabLink } from './use-tab-opener.ts';

const NOT_RUNNING = 'The preview is no longer running.';
const NO_FRAME_HERE =
  'The app is shown here only when Catalyst is opened on this machine (at localhost or 127.0.0.1); open it in a tab.';
const REFUSED_BY: Record<FramingRefusal, string> = {
  'x-frame-options': 'its X-Frame-Options header',
  'frame-ancestors': 'the frame-ancestors of its Content-Security-Policy header',
};

/**
 * What the browser lets the app's frame do (docs/security.md, "The preview's frame"). It is another site already;
 * it keeps scripts, its own origin (without it the page would be an opaque origin: no cookie of its own, and its
 * own requests refused by the preview server as another site's) and forms. It gets no navigation of Catalyst's
 * page, no pop-ups, no modal dialogs (they would hold Catalyst's page), no downloads.
 */
export const FRAME_SANDBOX = 'allow-scripts allow-same-origin allow-forms';

interface PreviewFrameProps {
  ideaId: string;
  /** A running preview's view; the frame is made again when its origin changes (a restart's new server). */
  view: PreviewView;
  /** A page loaded in the frame: the preview's view now says its path and whether the app refused the frame. */
  onFrameLoad: () => void;
}

/**
 * The running app in a frame (issue 31), when its headers allow: the path its server last passed on to the frame,
 * Reload, and Open in a tab. When the latest page loaded in the frame forbade it, the sentence instead of the
 * browser's blank error, until the person tries the frame again.
 */
export function PreviewFrame({ ideaId, view, onFrameLoad }: PreviewFrameProps) {
  const headingId = useId();
  const tabs = useTabOpener<'frame'>();
  /** The count of frame loads when the person asked for the frame again: refusals up to it are not shown. */
  const [retriedAt, setRetriedAt] = useState(0);
  const note = view.frame;
  const refusal = note !== undefined && note.loads > retriedAt ? note.refusal : undefined;
  const path = note?.path ?? '/';
  const openInTab = () => {
    void tabs.open('frame', () => fetchLink(ideaId, 'url', path)).finally(onFrameLoad);
  };
  return (
    <section className="preview-frame" aria-labelledby={headingId}>
      <h3 id={headingId}>The app</h3>
      {view.frameUrl === undefined ? (
        <p className="hint">{NO_FRAME_HERE}</p>
      ) : refusal === undefined ? (
        <FrameView ideaId={ideaId} path={path} onFrameLoad={onFrameLoad} onOpenInTab={openInTab} />
      ) : (
        <div className="preview-frame__refused" data-testid="preview-frame-refused">
          <p>This app does not allow being shown in a frame ({REFUSED_BY[refusal]}); open it in a tab.</p>
          <div className="actions">
            <button type="button" className="primary" onClick={openInTab}>
              Open in a tab
            </button>
            <button
              type="button"
              onClick={() => {
                setRetriedAt(note?.loads ?? 0);
              }}
            >
              Try the frame again
            </button>
          </div>
        </div>
      )}
      {tabs.error === undefined ? null : (
        <p className="form-error" role="alert">
          {tabs.error}
        </p>
      )}
    </section>
  );
}

interface FrameViewProps {
  ideaId: string;
  /** Where the frame opens: the page it showed last, else `/`. */
  path: string;
  onFrameLoad: () => void;
  onOpenInTab: () => void;
}

/** The frame itself, sent to a one-time link asked for when it is shown and at each Reload. */
function FrameView({ ideaId, path, onFrameLoad, onOpenInTab }: FrameViewProps) {
  const [src, setSrc] = useState<string>();
  const [error, setError] = useState<string>();
  const [reloads, setReloads] = useState(0);
  const [target, setTarget] = useState(path);
  useEffect(() => {
    let isCurrent = true;
    fetchLink(ideaId, 'frameUrl', target).then(
      (link) => {
        if (!isCurrent) return;
        if ('url' in link) setSrc(link.url);
        else setError(link.problem);
      },
      (caught: unknown) => {
        if (isCurrent) setError(describeError(caught));
      },
    );
    return () => {
      isCurrent = false;
    };
  }, [ideaId, target, reloads]);
  return (
    <>
      <div className="preview-frame__bar">
        <p className="preview-frame__path" data-testid="preview-frame-path">
          <span className="visually-hidden">Showing </span>
          <code>{path}</code>
        </p>
        <button
          type="button"
          onClick={() => {
            setError(undefined);
            setTarget(path);
            setReloads((count) => count + 1);
          }}
        >
          Reload
        </button>
        <button type="button" onClick={onOpenInTab}>
          Open in a tab
        </button>
      </div>
      {error === undefined ? null : (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      {src === undefined ? null : (
        <iframe
          className="preview-frame__frame"
          title="The app, as the preview serves it"
          src={src}
          sandbox={FRAME_SANDBOX}
          referrerPolicy="no-referrer"
          onLoad={onFrameLoad}
          data-testid="preview-frame"
        />
      )}
    </>
  );
}

/** A one-time link (`url` for a tab, `frameUrl` for the frame) going to `path`, asked for now. */
async function fetchLink(ideaId: string, kind: 'url' | 'frameUrl', path: string): Promise<TabLink> {
  const fresh = await api.preview(ideaId);
  const link = fresh.state === 'running' ? fresh[kind] : undefined;
  if (link === undefined) return { problem: NOT_RUNNING };
  return { url: path === '/' ? link : `${link}&to=${encodeURIComponent(path)}` };
}
