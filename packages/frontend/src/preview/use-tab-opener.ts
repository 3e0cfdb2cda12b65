import { useState } from 'react';
import { describeError } from '../base/api.ts';

const BLOCKED = 'The browser blocked the new tab. Allow pop-ups for Catalyst, then try again.';

/** Where to send the tab, or why there is nowhere to send it, in a sentence. */
export type TabLink = { readonly url: string } | { readonly problem: string };

export interface TabOpener<K> {
  /** What is being opened: its tab is there, its link on its way. */
  readonly opening: K | undefined;
  /** Why the latest opening failed, in a sentence. */
  readonly error: string | undefined;
  /** Call it during the click. Resolves once the tab is sent on, or closed. */
  open: (what: K, fetchLink: () => Promise<TabLink>) => Promise<void>;
}

/**
 * Opens tabs to one-time links, which expire soon after they are made: so the link is asked for only once the
 * click has happened, never taken from an earlier answer. The tab is opened during the click (a popup blocker
 * lets that one through), blank, and sent to the link once it is there; it is closed again if there is none.
 */
export function useTabOpener<K>(): TabOpener<K> {
  const [opening, setOpening] = useState<K>();
  const [error, setError] = useState<string>();

  const open = async (what: K, fetchLink: () => Promise<TabLink>) => {
    setError(undefined);
    const tab = window.open('about:blank', '_blank');
    if (tab === null) {
      setError(BLOCKED);
      return;
    }
    // What `noopener` does for a link: the opened page gets no handle on this one.
    tab.opener = null;
    setOpening(what);
    try {
      const link = await fetchLink();
      if ('url' in link) tab.location.replace(link.url);
      else {
        tab.close();
        setError(link.problem);
      }
    } catch (caught) {
      tab.close();
      setError(describeError(caught));
    } finally {
      setOpening(undefined);
    }
  };

  return { opening, error, open };
}
