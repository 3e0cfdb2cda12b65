import type { QuestionPolicy, RelayEvent } from '@catalyst/protocol';
import { useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { navigate } from '../base/router.ts';
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
  /** The person muted this idea on this device (push-device.ts): no notification of it here, pushed or not. */
  isMutedHere?: boolean;
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
 * notification when they allowed them (NotifyButton) and did not mute the idea here, and always a count in the
 * page's title, cleared once the tab is seen again. With pushes on, the same news may also come as a push (a hidden
 * tab does not show its idea): both carry the tag `idea-<id>`, so the device shows one, and if the push service
 * cannot be reached the tab's still comes. Only events after the first catch-up count, so opening a page never reports its history.
 */
export function useAttention(options: AttentionOptions): void {
  const { ideaId, events, lastSeq, isLive, ideaTitle, ideaPolicy, isMutedHere = false } = options;
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
    if (!isMutedHere) for (const attention of found) showNotification(attention, ideaId);
  }, [events, lastSeq, isLive, isHidden, ideaId, ideaTitle, ideaPolicy, isMutedHere]);

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
      // The push's tag (push-notifier.ts): one notification per idea on a device, whichever came first replaced.
      tag: `idea-${ideaId}`,
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
