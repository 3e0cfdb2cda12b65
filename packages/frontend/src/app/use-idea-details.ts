import type { HostCheckView, HostHealthView, IdeaView } from '@catalyst/protocol';
import { useCallback, useEffect, useRef, useState } from 'react';
import { api, ApiError, describeError } from '../base/api.ts';

export interface IdeaDetails {
  idea: IdeaView | undefined;
  /** Why the idea could not be read, while no earlier read is shown. */
  loadError: string | undefined;
  /** The server said there is no such idea: deleted (here, or in another tab or device). */
  isGone: boolean;
  /** The idea's host as the hosts page shows it, and its newest check. */
  host: HostHealthView | undefined;
  hostCheck: HostCheckView | null | undefined;
  /** Reads the idea again; only the newest answer counts. */
  reload: () => Promise<void>;
  /** Shows the idea a change answered with (it wins over any read still on its way). */
  applyChange: (changed: IdeaView) => void;
}

/** The idea's page's view of the idea itself (meta.json, through the API) and of its host. */
export function useIdeaDetails(ideaId: string): IdeaDetails {
  const [idea, setIdea] = useState<IdeaView>();
  const [loadError, setLoadError] = useState<string>();
  const [isGone, setIsGone] = useState(false);
  const [host, setHost] = useState<HostHealthView>();
  const [hostCheck, setHostCheck] = useState<HostCheckView | null>();
  const loads = useRef(0);

  // Only the newest answer counts: a slow older one must not overwrite a settings change made since.
  const reload = useCallback(async () => {
    loads.current += 1;
    const load = loads.current;
    try {
      const fresh = await api.getIdea(ideaId);
      if (load !== loads.current) return;
      setIdea(fresh);
      setLoadError(undefined);
    } catch (caught) {
      if (load !== loads.current) return;
      setLoadError(describeError(caught));
      if (caught instanceof ApiError && caught.code === 'IDEA_NOT_FOUND') setIsGone(true);
    }
  }, [ideaId]);

  // Once at first, without waiting for the stream: an idea that no longer exists never becomes live.
  useEffect(() => {
    void reload();
  }, [reload]);
  const applyChange = useCallback((changed: IdeaView) => {
    loads.current += 1;
    setIdea(changed);
  }, []);

  const hostName = idea?.host;
  useEffect(() => {
    if (hostName === undefined) return;
    let live = true;
    api.hosts().then(
      (hosts) => {
        if (live) setHost(hosts.find((candidate) => candidate.name === hostName));
      },
      () => undefined,
    );
    api.lastHostCheck(hostName).then(
      (check) => {
        if (live) setHostCheck(check);
      },
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [hostName]);

  return { idea, loadError, isGone, host, hostCheck, reload, applyChange };
}
