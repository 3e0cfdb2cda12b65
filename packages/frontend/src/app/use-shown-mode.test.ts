import type { ClientFrame, RunMode } from '@catalyst/protocol';
import { cleanup, renderHook } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { ConnectionState } from './connection.ts';
import { useShownMode } from './use-shown-mode.ts';

// The idea page tells the server which mode its composer shows, so a claude of that mode waits for the next turn
// (issue 30): once the history is in, on every switch, and again after a reconnect.

const ideaId = 'idea-0123456789abcdef';

afterEach(cleanup);

interface Props {
  state: ConnectionState;
  mode: RunMode | undefined;
  isLive: boolean;
}

describe('useShownMode', () => {
  it('says the mode once the history is live, on each switch, and after a reconnect', () => {
    const sent: string[] = [];
    let count = 0;
    const connection = {
      send: (frame: ClientFrame) => {
        if (frame.type === 'mode') sent.push(`${frame.ideaId} ${frame.mode}`);
        return 'sent' as const;
      },
      nextRequestId: (prefix: string) => {
        count += 1;
        return `${prefix}-${String(count)}`;
      },
    };
    const { rerender } = renderHook(
      ({ state, mode, isLive }: Props) => {
        useShownMode(connection, state, { ideaId, mode, isLive });
      },
      { initialProps: { state: 'connecting', mode: 'chat', isLive: false } },
    );
    rerender({ state: 'open', mode: 'chat', isLive: false });
    expect(sent).toEqual([]);
    rerender({ state: 'open', mode: 'chat', isLive: true });
    expect(sent).toEqual([`${ideaId} chat`]);
    rerender({ state: 'open', mode: 'build', isLive: true });
    expect(sent).toEqual([`${ideaId} chat`, `${ideaId} build`]);
    rerender({ state: 'reconnecting', mode: 'build', isLive: true });
    rerender({ state: 'open', mode: 'build', isLive: true });
    expect(sent).toEqual([`${ideaId} chat`, `${ideaId} build`, `${ideaId} build`]);
  });
});
