import { asideViewsOf, type AskAsideBody, type AsideView, type RelayEvent } from '@catalyst/protocol';
import { useCallback, useMemo, useState } from 'react';
import { api, describeError } from '../base/api.ts';

/** The idea's asides (issue 30), read from its events as they come, and asking one. */
export interface AsidesControl {
  views: readonly AsideView[];
  /** How many wait for their answer. */
  goingCount: number;
  isAsking: boolean;
  error: string | undefined;
  /** Resolves true once the server took the question (its answer comes as an event). */
  ask: (body: AskAsideBody) => Promise<boolean>;
  dismissError: () => void;
}

export function useAsides(ideaId: string, events: readonly RelayEvent[]): AsidesControl {
  const views = useMemo(() => asideViewsOf(events), [events]);
  const [isAsking, setIsAsking] = useState(false);
  const [error, setError] = useState<string>();
  const ask = useCallback(
    async (body: AskAsideBody) => {
      setIsAsking(true);
      setError(undefined);
      try {
        await api.askAside(ideaId, body);
        return true;
      } catch (caught) {
        setError(describeError(caught));
        return false;
      } finally {
        setIsAsking(false);
      }
    },
    [ideaId],
  );
  const dismissError = useCallback(() => {
    setError(undefined);
  }, []);
  return {
    views,
    goingCount: views.filter((view) => view.state === 'asking').length,
    isAsking,
    error,
    ask,
    dismissError,
  };
}
