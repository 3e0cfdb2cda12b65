import type { RelayEvent } from '@catalyst/protocol';
import { cleanup, renderHook } from '@testing-library/react';
import { act } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { IDEA_ID, relayEvent, started } from '../../test/support/transcript-fixtures.ts';
import { useAttention, type AttentionOptions } from './use-attention.ts';

// The page's side of attention: nothing for the history a page opens with, nor while the tab is seen; while it is
// hidden, a notification (with permission) and a count in the title; a click on it brings the idea back; seeing
// the tab again clears the count.

let visibility: DocumentVisibilityState = 'visible';
const shown: {
  title: string;
  body: string | undefined;
  tag: string | undefined;
  notification: FakeNotification;
}[] = [];

class FakeNotification {
  static permission: NotificationPermission = 'granted';
  onclick: (() => void) | null = null;
  readonly close = vi.fn();
  constructor(title: string, options?: NotificationOptions) {
    shown.push({ title, body: options?.body, tag: options?.tag, notification: this });
  }
}

beforeEach(() => {
  visibility = 'visible';
  shown.length = 0;
  FakeNotification.permission = 'granted';
  Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => visibility });
  vi.stubGlobal('Notification', FakeNotification);
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function setVisibility(next: DocumentVisibilityState) {
  act(() => {
    visibility = next;
    document.dispatchEvent(new Event('visibilitychange'));
  });
}

const ended = (seq: number, runId: string) =>
  relayEvent(seq, { type: 'run:ended', runId, outcome: 'completed' });

function renderAttention(events: readonly RelayEvent[], extra: Partial<AttentionOptions> = {}) {
  const base: AttentionOptions = {
    ...extra,
    ideaId: IDEA_ID,
    events,
    lastSeq: events.at(-1)?.seq ?? 0,
    isLive: true,
    ideaTitle: 'Tip splitter',
    ideaPolicy: 'human',
  };
  const view = renderHook(
    (options: AttentionOptions) => {
      useAttention(options);
    },
    { initialProps: base },
  );
  return (more: readonly RelayEvent[]) => {
    view.rerender({ ...base, events: more, lastSeq: more.at(-1)?.seq ?? 0 });
  };
}

describe('useAttention', () => {
  it('tells a hidden tab of a run that ended: a notification and the title`s count, cleared when seen', () => {
    const history = [started(1, 'r1', 'Hi'), ended(2, 'r1')];
    const update = renderAttention(history);
    expect(document.title).toBe('Tip splitter · Catalyst');
    expect(shown, 'the history a page opens with is not news').toEqual([]);

    setVisibility('hidden');
    update([...history, started(3, 'r2', 'Again'), ended(4, 'r2')]);
    expect(shown.map(({ title, body }) => ({ title, body }))).toEqual([
      { title: 'Run completed', body: 'Tip splitter' },
    ]);
    expect(document.title).toBe('(1) Run completed · Catalyst');

    const focus = vi.spyOn(window, 'focus').mockImplementation(() => undefined);
    shown[0]?.notification.onclick?.();
    expect(focus).toHaveBeenCalledOnce();
    expect(location.pathname).toBe(`/ideas/${IDEA_ID}`);
    expect(shown[0]?.notification.close).toHaveBeenCalledOnce();

    setVisibility('visible');
    expect(document.title).toBe('Tip splitter · Catalyst');
  });

  it('says nothing while the tab is seen, and only counts without permission', () => {
    const update = renderAttention([]);
    update([started(1, 'r1', 'Hi'), ended(2, 'r1')]);
    expect(shown).toEqual([]);
    expect(document.title).toBe('Tip splitter · Catalyst');

    FakeNotification.permission = 'default';
    setVisibility('hidden');
    update([started(1, 'r1', 'Hi'), ended(2, 'r1'), started(3, 'r2', 'Again'), ended(4, 'r2')]);
    expect(shown).toEqual([]);
    expect(document.title).toBe('(1) Run completed · Catalyst');
  });

  it('shows nothing for an idea muted on this device, and still counts', () => {
    const update = renderAttention([], { isMutedHere: true });
    setVisibility('hidden');
    update([started(1, 'r1', 'Hi'), ended(2, 'r1')]);
    expect(shown, 'a muted idea').toEqual([]);
    expect(document.title).toBe('(1) Run completed · Catalyst');
  });

  it('tags its notification as the push does (idea-<id>), so a device with pushes on shows the news once', () => {
    const update = renderAttention([]);
    setVisibility('hidden');
    update([started(1, 'r1', 'Hi'), ended(2, 'r1')]);
    expect(shown.map(({ tag }) => tag)).toEqual([`idea-${IDEA_ID}`]);
  });
});
