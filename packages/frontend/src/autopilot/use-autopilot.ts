import type { AutopilotView, RelayEvent, StartAutopilotBody } from '@catalyst/protocol';
import { useCallback, useEffect, useRef, useState } from 'react';
import { api, describeError } from '../base/api.ts';

export interface AutopilotControl {
  /** The idea's current or last autopilot; undefined while it never had one (or before it has loaded). */
  readonly view: AutopilotView | undefined;
  /** The latest failure of a start, a cancel or a load, as a sentence. */
  readonly error: string | undefined;
  /** A start or a cancel is on its way. */
  readonly isBusy: boolean;
  /** Cancel was asked for; the autopilot has not ended yet. */
  readonly isStopping: boolean;
  /** Resolves true when the autopilot started. */
  start: (body: StartAutopilotBody) => Promise<boolean>;
  cancel: () => void;
  dismissError: () => void;
  /** A view an action elsewhere returned (the queue's): shown at once. */
  adopt: (view: AutopilotView | null) => void;
}

/** The `seq` of the idea's newest `autopilot:*` event; undefined when it never had an autopilot. */
export function findLastAutopilotSeq(events: readonly RelayEvent[]): number | undefined {
  for (let index = events.length - 1; index >= 0; index -= 1) {
    const event = events[index];
    if (event?.type.startsWith('autopilot:') === true) return event.seq;
  }
  return undefined;
}

/**
 * The idea's autopilot as the server sees it (`GET /api/ideas/:id/autopilot`), fetched again whenever an
 * `autopilot:*` event arrives on the idea's stream, so the view folds the events the way the server does rather
 * than a second time here. An idea whose history has no such event never had one: no request (the answer would be
 * `{ autopilot: null }`).
 */
export function useAutopilot(
  ideaId: string,
  events: readonly RelayEvent[],
  isLive: boolean,
): AutopilotControl {
  const [view, setView] = useState<AutopilotView>();
  const [error, setError] = useState<string>();
  const [isBusy, setIsBusy] = useState(false);
  const [stoppingId, setStoppingId] = useState<string>();
  const loads = useRef(0);
  const lastSeq = findLastAutopilotSeq(events);

  // Only the newest answer counts: a slow older one must not overwrite the view a start or a cancel returned.
  const show = useCallback((next: Promise<AutopilotView | null>): Promise<boolean> => {
    loads.current += 1;
    const load = loads.current;
    return next.then(
      (fresh) => {
        if (load === loads.current) setView(fresh ?? undefined);
        return true;
      },
      (caught: unknown) => {
        if (load === loads.current) setError(describeError(caught));
        return false;
      },
    );
  }, []);

  useEffect(() => {
    if (lastSeq === undefined || !isLive) return;
    void show(api.latestAutopilot(ideaId));
  }, [ideaId, lastSeq, isLive, show]);

  const act = async (action: Promise<AutopilotView>): Promise<boolean> => {
    setIsBusy(true);
    setError(undefined);
    try {
      return await show(action);
    } finally {
      setIsBusy(false);
    }
  };

  return {
    view,
    error,
    isBusy,
    isStopping: view?.state === 'running' && view.id === stoppingId,
    start: (body) => act(api.startAutopilot(ideaId, body)),
    cancel: () => {
      if (view === undefined) return;
      setStoppingId(view.id);
      void act(api.cancelAutopilot(view.id)).then((isAccepted) => {
        if (!isAccepted) setStoppingId(undefined);
      });
    },
    dismissError: () => {
      setError(undefined);
    },
    adopt: (fresh) => {
      void show(Promise.resolve(fresh));
    },
  };
}
