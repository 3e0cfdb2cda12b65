import { describe, expect, it } from 'vitest';
import {
  GO_ON_BELOW_BYTES,
  HIDDEN_GO_ON_BELOW_BYTES,
  HIDDEN_HOLD_ABOVE_BYTES,
  HOLD_ABOVE_BYTES,
  OutputFlow,
} from './output-flow.ts';

describe('OutputFlow', () => {
  it('asks to hold past the high mark, once, and to go on under the low mark, once', () => {
    const asked: boolean[] = [];
    const flow = new OutputFlow((isHeld) => asked.push(isHeld));
    const chunk = 64 * 1024;
    const chunks = Math.ceil(HOLD_ABOVE_BYTES / chunk) + 2;
    for (let given = 0; given < chunks; given += 1) flow.given(chunk);
    expect(asked).toEqual([true]);
    expect(flow.isHeld).toBe(true);
    // Drawn down to just above the low mark: still held.
    let pending = chunks * chunk;
    while (pending - chunk >= GO_ON_BELOW_BYTES) {
      flow.drawn(chunk);
      pending -= chunk;
    }
    expect(asked).toEqual([true]);
    flow.drawn(pending);
    expect(asked).toEqual([true, false]);
    expect(flow.isHeld).toBe(false);
  });

  it('never asks while the page keeps up', () => {
    const asked: boolean[] = [];
    const flow = new OutputFlow((isHeld) => asked.push(isHeld));
    for (let given = 0; given < 1_000; given += 1) {
      flow.given(16 * 1024);
      flow.drawn(16 * 1024);
    }
    expect(asked).toEqual([]);
  });
});

describe('OutputFlow in a hidden page', () => {
  it('lets the output pile up to the hidden mark, goes on at once when hidden, and holds again once shown', () => {
    const asked: boolean[] = [];
    const flow = new OutputFlow((isHeld) => asked.push(isHeld));
    flow.given(HOLD_ABOVE_BYTES + 1);
    expect(asked).toEqual([true]);
    // Hidden: the browser draws about once a second, so what was held goes on.
    flow.setHidden(true);
    expect(asked).toEqual([true, false]);
    flow.given(HIDDEN_HOLD_ABOVE_BYTES - HOLD_ABOVE_BYTES - 1);
    expect(asked).toEqual([true, false]);
    flow.given(2);
    expect(asked).toEqual([true, false, true]);
    flow.drawn(HIDDEN_HOLD_ABOVE_BYTES - HIDDEN_GO_ON_BELOW_BYTES + 3);
    expect(asked).toEqual([true, false, true, false]);
    // Shown again with megabytes still to draw: held until drawn down, as usual.
    flow.setHidden(false);
    expect(asked).toEqual([true, false, true, false, true]);
    flow.drawn(HIDDEN_GO_ON_BELOW_BYTES - GO_ON_BELOW_BYTES);
    expect(asked).toEqual([true, false, true, false, true, false]);
  });
});
