import type { ClientFrame } from '@catalyst/protocol';
import { act, cleanup, renderHook } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { ConnectionState } from './connection.ts';
import { useViewing } from './use-viewing.ts';

// The idea page tells the server what it shows while visible, so no push about it reaches this device; the server
// forgets on close, so every reconnect says it again.

const ideaId = 'idea-0123456789abcdef';
let isHidden = false;
Object.defineProperty(document, 'visibilityState', {
  configurable: true,
  get: () => (isHidden ? 'hidden' : 'visible'),
});

afterEach(() => {
  cleanup();
  isHidden = false;
});

function fakeConnection() {
  const sent: (string | null)[] = [];
  let count = 0;
  return {
    sent,
    connection: {
      send: (frame: ClientFrame) => {
        if (frame.type === 'viewing') sent.push(frame.ideaId);
        return 'sent' as const;
      },
      nextRequestId: (prefix: string) => {
        count += 1;
        return `${prefix}-${String(count)}`;
      },
    },
  };
}

function setHidden(hidden: boolean) {
  act(() => {
    isHidden = hidden;
    document.dispatchEvent(new Event('visibilitychange'));
  });
}

describe('useViewing', () => {
  it('says the idea while visible, null while hidden or gone, and again after a reconnect', () => {
    const { connection, sent } = fakeConnection();
    const { rerender, unmount } = renderHook(
      ({ state }: { state: ConnectionState }) => {
        useViewing(connection, state, ideaId);
      },
      { initialProps: { state: 'connecting' } },
    );
    expect(sent).toEqual([]);
    rerender({ state: 'open' });
    expect(sent).toEqual([ideaId]);
    setHidden(true);
    expect(sent).toEqual([ideaId, null]);
    setHidden(false);
    expect(sent).toEqual([ideaId, null, ideaId]);
    rerender({ state: 'reconnecting' });
    rerender({ state: 'open' });
    expect(sent).toEqual([ideaId, null, ideaId, ideaId]);
    unmount();
    expect(sent).toEqual([ideaId, null, ideaId, ideaId, null]);
  });
});
