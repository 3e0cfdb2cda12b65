import { describe, expect, it } from 'vitest';
import { ActiveRuns } from './active-runs.ts';
import { IdeaActivity } from './idea-activity.ts';
import { deletingClaim, restoringClaim } from './run-claim.ts';

function activityWith(state: { running?: string; holding?: string[]; asking?: string[] }) {
  const active = new ActiveRuns();
  const activity = new IdeaActivity({
    active,
    queues: () => ({
      runningOn: (id) => (id === state.running ? 'autopilot-1' : undefined),
      isHolding: (id) => state.holding?.includes(id) ?? false,
    }),
    asides: () => ({ isAsking: (id) => state.asking?.includes(id) ?? false }),
  });
  return { active, activity };
}

describe('IdeaActivity (issue 41): whether an idea is busy, asked in one place', () => {
  it('an idle idea is neither busy, nor written to, nor being deleted', () => {
    const { activity } = activityWith({});
    expect([activity.isBusy('a'), activity.isWriting('a'), activity.isDeleting('a')]).toEqual([
      false,
      false,
      false,
    ]);
    expect(activity.autopilotOn('a')).toBeUndefined();
  });

  it('a held place (a restore, a delete) makes the idea busy and written to; only a delete is a delete', () => {
    const { active, activity } = activityWith({});
    active.hold('a', restoringClaim);
    active.hold('b', deletingClaim);
    expect([activity.isBusy('a'), activity.isWriting('a'), activity.isDeleting('a')]).toEqual([
      true,
      true,
      false,
    ]);
    expect(activity.isDeleting('b')).toBe(true);
    active.release('a');
    expect(activity.isBusy('a')).toBe(false);
  });

  it('a running autopilot makes the idea busy; a paused queue or an aside only keeps its history written to', () => {
    const { activity } = activityWith({ running: 'a', holding: ['a', 'b'], asking: ['c'] });
    expect(activity.autopilotOn('a')).toBe('autopilot-1');
    expect([activity.isBusy('a'), activity.isWriting('a')]).toEqual([true, true]);
    expect([activity.isBusy('b'), activity.isWriting('b')]).toEqual([false, true]);
    expect([activity.isBusy('c'), activity.isWriting('c')]).toEqual([false, true]);
  });
});
