import type { QuestionPolicy, RelayEvent } from '@catalyst/protocol';
import { useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { navigate } from '../app/router.ts';
import { findAttention, type Attention } from '@catalyst/protocol';
import { formatPageTitle } from './page-title.ts';

export interface AttentionOptions {
  ideaId: string;
  events: readonly RelayEvent[];
  lastSeq: number;
  /** The replay has caught up: what arrives now happens now. */
  isLive: boolean;
  ideaTitle: string | undefined;
  ideaPolicy: QuestionPolicy | undefined;
  /**
   * This device has pushes on (push-device.ts): the push is its notification (or none, for an idea muted here),
   * so the tab shows none of its own, which would be the same one twice.
   */
  isPushOn?: boolean;
}

function subscribeToVisibility(listener: () => void): () => void {
  document.addEventListener('visibilitychange', listener);
  return () => {
    document.removeEventListener('visibilitychange', listener);
  };
}

export function useIsHidden(): boolean {
  return useSyncExternalStore(subscribeToVisibility, () => document.visibilityState === 'hidden');
}

/**
 * Tells a person who is not looking at the tab what happened on the idea (attention.ts decides what): a browser
 * notification when they allowed them (NotifyButton) and this device has no pushes, and always a count in the page's title, cleared once the tab
 * is seen again. Only events after the first catch-up count, so opening a page never reports its history.
 */
export function useAttention(options: AttentionOptions): void {
  const { ideaId, events, lastSeq, isLive, ideaTitle, ideaPolicy, isPushOn = false } = options;
  const isHidden = useIsHidden();
  const [unseen, setUnseen] = useState<readonly Attention[]>([]);
  const seenSeq = useRef<number>(undefined);

  useEffect(() => {
    // A replay after a reconnect is held back until it has caught up, then told: it happened while away.
    if (!isLive) return;
    const afterSeq = seenSeq.current;
    seenSeq.current = lastSeq;
    if (afterSeq === undefined || !isHidden) return;
    const found = findAttention(events, { afterSeq, ideaTitle: ideaTitle ?? 'Idea', ideaPolicy });
    if (found.length === 0) return;
    setUnseen((list) => [...list, ...found]);
    if (!isPushOn) for (const attention of found) showNotification(attention, ideaId);
  }, [events, lastSeq, isLive, isHidden, ideaId, ideaTitle, ideaPolicy, isPushOn]);

  useEffect(() => {
    if (!isHidden) setUnseen([]);
  }, [isHidden]);

  useEffect(() => {
    document.title = formatPageTitle(ideaTitle ?? 'Idea', unseen);
  }, [ideaTitle, unseen]);
}

/** Shown only with the person's permission; a click brings back the window, on this idea. */
function showNotification(attention: Attention, ideaId: string): void {
  if (!('Notification' in window) || Notification.permission !== 'granted') return;
  let notification: Notification;
  try {
    notification = new Notification(attention.title, {
      body: attention.body,
      tag: `catalyst-${ideaId}-${attention.seq}`,
    });
  } catch {
    // Chrome on Android shows notifications only through a service worker and throws here: the count in the
    // title is what tells the person there.
    return;
  }
  notification.onclick = () => {
    window.focus();
    navigate(`/ideas/${ideaId}`);
    notification.close();
  };
}
