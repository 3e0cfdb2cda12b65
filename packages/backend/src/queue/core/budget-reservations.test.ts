import { describe, expect, it } from 'vitest';
import { floorToMicroUsd } from '../../core/claude-command.ts';
import { BudgetReservations, capOf, fitsHold, type ReserveOutcome } from './budget-reservations.ts';

function held(outcome: ReserveOutcome) {
  if (outcome.kind !== 'held') throw new Error(`expected a hold, got ${outcome.kind}`);
  return outcome.hold;
}

describe('budget reservations', () => {
  it('gives a build and three asides caps that add up to what was left, then nothing', () => {
    const budgets = new BudgetReservations();
    const left = 1.5;
    const build = held(
      budgets.reserve('idea-a', { mark: budgets.mark('idea-a'), leftUsd: left, limitUsd: 1 }),
    );
    const first = held(budgets.reserve('idea-a', { mark: budgets.mark('idea-a'), leftUsd: left }));
    expect([build.capUsd, first.capUsd]).toEqual([1, 0.5]);
    expect(budgets.reserve('idea-a', { mark: budgets.mark('idea-a'), leftUsd: left })).toEqual({
      kind: 'spent',
      heldUsd: 1.5,
    });
    // Another idea's budget is its own.
    expect(held(budgets.reserve('idea-b', { mark: budgets.mark('idea-b'), leftUsd: left })).capUsd).toBe(1.5);
  });

  it('frees a hold once released, and calls a read made before the release stale', () => {
    const budgets = new BudgetReservations();
    const build = held(budgets.reserve('idea-a', { mark: budgets.mark('idea-a'), leftUsd: 2 }));
    const before = budgets.mark('idea-a');
    build.release();
    build.release();
    expect(budgets.heldUsd('idea-a')).toBe(0);
    expect(budgets.reserve('idea-a', { mark: before, leftUsd: 2 })).toEqual({ kind: 'stale' });
    // Read again after the build's cost (0.75) reached meta.json.
    expect(held(budgets.reserve('idea-a', { mark: budgets.mark('idea-a'), leftUsd: 1.25 })).capUsd).toBe(
      1.25,
    );
  });

  it('shrinks a hold to a warm process’s rest, never grows it', () => {
    const budgets = new BudgetReservations();
    const turn = held(budgets.reserve('idea-a', { mark: budgets.mark('idea-a'), leftUsd: 1 }));
    turn.shrinkTo(0.4);
    turn.shrinkTo(0.9);
    expect(budgets.heldUsd('idea-a')).toBeCloseTo(0.4, 12);
    expect(held(budgets.reserve('idea-a', { mark: budgets.mark('idea-a'), leftUsd: 1 })).capUsd).toBe(0.6);
  });

  it('holds Infinity for an unbounded process, so a budget set meanwhile leaves nothing', () => {
    const budgets = new BudgetReservations();
    const free = held(
      budgets.reserve('idea-a', { mark: budgets.mark('idea-a'), leftUsd: Number.POSITIVE_INFINITY }),
    );
    expect(free.capUsd).toBe(Number.POSITIVE_INFINITY);
    expect(held(budgets.reserve('idea-a', { mark: budgets.mark('idea-a'), leftUsd: Infinity })).capUsd).toBe(
      Infinity,
    );
    expect(budgets.reserve('idea-a', { mark: budgets.mark('idea-a'), leftUsd: 3 })).toMatchObject({
      kind: 'spent',
    });
  });

  it('remembers the cap of a process it was told of', () => {
    const budgets = new BudgetReservations();
    const process = {};
    expect(budgets.capOfProcess(process)).toBeUndefined();
    budgets.noteCap(process, 0.25);
    expect(budgets.capOfProcess(process)).toBe(0.25);
  });
});

describe('capOf', () => {
  it('rounds down to the flag’s six decimals and refuses less than one micro-dollar', () => {
    expect(capOf({ leftUsd: 0.1234567, heldUsd: 0 })).toBe(0.123456);
    expect(capOf({ leftUsd: 0.0000009, heldUsd: 0 })).toBeUndefined();
    expect(capOf({ leftUsd: 1, heldUsd: 1 })).toBeUndefined();
    expect(capOf({ leftUsd: 1, heldUsd: 2 })).toBeUndefined();
    expect(capOf({ leftUsd: Infinity, heldUsd: Infinity, limitUsd: 0.5 })).toBe(0.5);
    expect(floorToMicroUsd(2.9999999)).toBe(2.999999);
  });
});

describe('fitsHold', () => {
  it('fits a warm process whose rest is within the hold', () => {
    expect(fitsHold({ capUsd: 1, costUsd: 0.25 }, 0.75)).toBe(true);
    expect(fitsHold({ capUsd: 1, costUsd: 0.25 }, 0.5)).toBe(false);
    expect(fitsHold({ capUsd: undefined, costUsd: 0 }, 5)).toBe(false);
    expect(fitsHold({ capUsd: undefined, costUsd: 0 }, Infinity)).toBe(true);
  });

  it('a hold of another idea ending leaves a read of this one good; without a budget a read is never stale', () => {
    const budgets = new BudgetReservations();
    const other = held(budgets.reserve('idea-b', { mark: budgets.mark('idea-b'), leftUsd: 2 }));
    const before = budgets.mark('idea-a');
    const unbounded = budgets.mark('idea-c');
    const own = held(budgets.reserve('idea-c', { mark: unbounded, leftUsd: Number.POSITIVE_INFINITY }));
    other.release();
    own.release();
    expect(budgets.reserve('idea-a', { mark: before, leftUsd: 2 }).kind).toBe('held');
    expect(budgets.reserve('idea-c', { mark: unbounded, leftUsd: Number.POSITIVE_INFINITY }).kind).toBe(
      'held',
    );
  });
});
