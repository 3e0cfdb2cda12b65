import { describe, expect, it } from 'vitest';
import { TerminalFlow, type FlowClient } from './terminal-flow.ts';

function createClient(isBehind: boolean): FlowClient & { catchUp(): void; behind: boolean } {
  let resolveCaughtUp: (() => void) | undefined;
  const client = {
    behind: isBehind,
    isBehind: () => client.behind,
    caughtUp: () => new Promise<void>((resolve) => (resolveCaughtUp = resolve)),
    catchUp: () => {
      client.behind = false;
      resolveCaughtUp?.();
    },
  };
  return client;
}

describe('a terminal’s output flow', () => {
  it('reads on with no client until the scrollback’s fill, then waits for a client', async () => {
    const flow = new TerminalFlow(100);
    const state: { client: FlowClient | undefined; isEnding: boolean } = {
      client: undefined,
      isEnding: false,
    };
    flow.countRead(99, false);
    await flow.readyToRead(() => state);
    flow.countRead(1, false);
    const ready = flow.readyToRead(() => state);
    expect(flow.stats()).toMatchObject({ bytesRead: 100, isHoldingBack: true });
    state.client = createClient(false);
    flow.wake();
    await ready;
    expect(flow.stats().isHoldingBack).toBe(false);
  });

  it('waits while the client is behind, and counts afresh after a detach', async () => {
    const flow = new TerminalFlow(100);
    const client = createClient(true);
    const state: { client: FlowClient | undefined; isEnding: boolean } = { client, isEnding: false };
    flow.countRead(500, true);
    const ready = flow.readyToRead(() => state);
    expect(flow.stats().isHoldingBack).toBe(true);
    client.catchUp();
    await ready;
    state.client = undefined;
    flow.detached();
    await flow.readyToRead(() => state);
    expect(flow.stats()).toMatchObject({ bytesRead: 500, isHoldingBack: false });
  });

  it('never waits once the terminal is ending, so its output is read to the end', async () => {
    const flow = new TerminalFlow(10);
    const state = { client: undefined, isEnding: false };
    flow.countRead(10, false);
    const ready = flow.readyToRead(() => state);
    state.isEnding = true;
    flow.wake();
    await ready;
    expect(flow.stats().isHoldingBack).toBe(false);
  });
});
