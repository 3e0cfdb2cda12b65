import type { IdeaView, PreviewView } from '@catalyst/protocol';
import { useCallback, useEffect, useRef, useState } from 'react';
import { api, describeError } from '../base/api.ts';
import { pollDelayOf, type PreviewSettingsBody } from './preview-text.ts';

export type PreviewAction = 'start' | 'stop' | 'restart' | 'save';

export interface PreviewControl {
  readonly view: PreviewView | undefined;
  /** The latest look at the preview failed; the next one that works clears it. */
  readonly loadError: string | undefined;
  /** The latest start, stop, restart or save failed. */
  readonly actionError: string | undefined;
  readonly busy: PreviewAction | undefined;
  /** Counts the views received: each one is a moment to look again at what changes while it runs (its log). */
  readonly version: number;
  /** Asks for the view at once (its one-time link was just used). */
  refresh: () => void;
  start: () => void;
  stop: () => void;
  restart: () => void;
  /** Resolves true once saved. */
  save: (body: PreviewSettingsBody) => Promise<boolean>;
}

/**
 * The idea's preview as the server sees it (`GET /api/ideas/:id/preview`), asked for again every 2 s while it
 * starts or runs (a crash shows without a reload) and every 10 s otherwise, for as long as the caller is mounted.
 * Only the newest request's answer is shown, so a slow poll cannot undo a start; no poll is made during an action.
 */
export function usePreview(ideaId: string, onIdeaChanged: (idea: IdeaView) => void): PreviewControl {
  const [view, setView] = useState<PreviewView>();
  const [version, setVersion] = useState(0);
  const [loadError, setLoadError] = useState<string>();
  const [actionError, setActionError] = useState<string>();
  const [busy, setBusy] = useState<PreviewAction>();
  /** Counts the newest requests' answers, failures too: each one schedules the next poll. */
  const [answers, setAnswers] = useState(0);
  const loads = useRef(0);

  const fetchView = useCallback(async (request: () => Promise<PreviewView>, isAction: boolean) => {
    loads.current += 1;
    const load = loads.current;
    try {
      const fresh = await request();
      if (load !== loads.current) return;
      setView(fresh);
      setVersion((count) => count + 1);
      setLoadError(undefined);
    } catch (caught) {
      if (isAction) setActionError(describeError(caught));
      else if (load === loads.current) setLoadError(describeError(caught));
    } finally {
      if (load === loads.current) setAnswers((count) => count + 1);
    }
  }, []);

  const refresh = useCallback(() => {
    void fetchView(() => api.preview(ideaId), false);
  }, [ideaId, fetchView]);

  useEffect(refresh, [refresh]);

  const delay = pollDelayOf(view?.state);
  useEffect(() => {
    if (busy !== undefined) return undefined;
    const timer = setTimeout(refresh, delay);
    return () => {
      clearTimeout(timer);
    };
  }, [answers, delay, busy, refresh]);

  const act = (action: PreviewAction, request: () => Promise<PreviewView>) => {
    setBusy(action);
    setActionError(undefined);
    void fetchView(request, true).finally(() => {
      setBusy(undefined);
    });
  };

  const save = async (body: PreviewSettingsBody): Promise<boolean> => {
    setBusy('save');
    setActionError(undefined);
    try {
      onIdeaChanged(await api.updateIdea(ideaId, body));
      refresh();
      return true;
    } catch (caught) {
      setActionError(describeError(caught));
      return false;
    } finally {
      setBusy(undefined);
    }
  };

  return {
    view,
    loadError,
    actionError,
    busy,
    version,
    refresh,
    start: () => {
      act('start', () => api.startPreview(ideaId));
    },
    stop: () => {
      act('stop', () => api.stopPreview(ideaId));
    },
    restart: () => {
      act('restart', async () => {
        await api.stopPreview(ideaId);
        return api.startPreview(ideaId);
      });
    },
    save,
  };
}
