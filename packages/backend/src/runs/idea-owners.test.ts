import { describe, expect, it } from 'vitest';
import type { AutopilotView, RunMode } from '@catalyst/protocol';
import { CatalystError } from '../core/catalyst-error.ts';
import { ActiveRuns } from './active-runs.ts';
import { IdeaOwners } from './idea-owners.ts';
import { deletingClaim, restoringClaim } from './run-claim.ts';

interface State {
  running?: string;
  holding?: string[];
  asking?: string[];
  /** What startRun does besides holding the idea's place (the run's launch). */
  start?: (id: string) => Promise<void>;
}

function ownersWith(state: State) {
  const active = new ActiveRuns();
  const calls: string[] = [];
  const owners = new IdeaOwners(active, () => ({
    autopilots: {
      runningOn: (id) => (id === state.running ? 'autopilot-1' : undefined),
      isHolding: (id) => state.holding?.includes(id) ?? false,
      add: (_id, { mode, message }) => {
        calls.push(`queued ${mode} ${message}`);
        return Promise.resolve({ id: 'autopilot-q' } as AutopilotView);
      },
    },
    asides: { isAsking: (id) => state.asking?.includes(id) ?? false },
    runs: {
      startRun: async (id: string, mode: RunMode, message: string) => {
        calls.push(`run ${mode} ${message}`);
        active.refuseWhenBusy(id, 'busy');
        active.hold(id, { ...restoringClaim, runId: `run-${message}` });
        await state.start?.(id);
        return { runId: `run-${message}` };
      },
    },
  }));
  return { active, owners, calls };
}

describe('IdeaOwners (issue 41): what an idea is doing, asked in one place', () => {
  it('an idle idea is neither busy, nor written to, nor being deleted', () => {
    const { owners } = ownersWith({});
    const a = owners.of('a');
    expect([a.isBusy(), a.isWriting(), a.isDeleting()]).toEqual([false, false, false]);
    expect(a.autopilotOn()).toBeUndefined();
    expect(a.runTag()).toBeUndefined();
  });

  it('a held place (a restore, a delete) makes the idea busy and written to; only a delete is a delete', () => {
    const { active, owners } = ownersWith({});
    active.hold('a', restoringClaim);
    active.hold('b', deletingClaim);
    expect([owners.of('a').isBusy(), owners.of('a').isWriting(), owners.of('a').isDeleting()]).toEqual([
      true,
      true,
      false,
    ]);
    expect(owners.of('b').isDeleting()).toBe(true);
    active.release('a');
    expect(owners.of('a').isBusy()).toBe(false);
  });

  it('a running autopilot makes the idea busy; a paused queue or an aside only keeps its history written to', () => {
    const { owners } = ownersWith({ running: 'a', holding: ['a', 'b'], asking: ['c'] });
    expect(owners.of('a').autopilotOn()).toBe('autopilot-1');
    expect([owners.of('a').isBusy(), owners.of('a').isWriting()]).toEqual([true, true]);
    expect([owners.of('b').isBusy(), owners.of('b').isWriting()]).toEqual([false, true]);
    expect([owners.of('c').isBusy(), owners.of('c').isWriting()]).toEqual([false, true]);
  });
});

describe('IdeaOwner.send (issue 41): a person message, a run at once or the next step of the queue', () => {
  it('starts a run on an idle idea, and queues behind a run or a running autopilot', async () => {
    const { active, owners, calls } = ownersWith({ running: 'b' });
    await expect(owners.of('a').send('chat', 'one')).resolves.toEqual({ runId: 'run-one' });
    await expect(owners.of('a').send('build', 'two')).resolves.toEqual({ queued: { id: 'autopilot-q' } });
    await expect(owners.of('b').send('chat', 'three')).resolves.toEqual({ queued: { id: 'autopilot-q' } });
    expect(calls).toEqual(['run chat one', 'queued build two', 'queued chat three']);
    active.release('a');
    await expect(owners.of('a').send('chat', 'four')).resolves.toEqual({ runId: 'run-four' });
  });

  it('takes two messages sent at once in order: the second is queued once the first run holds the idea', async () => {
    let launched!: () => void;
    const launch = new Promise<void>((resolve) => (launched = resolve));
    const { owners, calls } = ownersWith({ start: (id) => (id === 'a' ? launch : Promise.resolve()) });
    const first = owners.of('a').send('chat', 'first');
    const second = owners.of('a').send('chat', 'second');
    // Queued while the first run is still launching (a checkpoint, a slow host): it found the idea's place taken.
    await expect(second).resolves.toEqual({ queued: { id: 'autopilot-q' } });
    // Other ideas are not held up by this one's launch either.
    await expect(owners.of('b').send('chat', 'elsewhere')).resolves.toEqual({ runId: 'run-elsewhere' });
    expect(calls).toEqual(['run chat first', 'queued chat second', 'run chat elsewhere']);
    launched();
    await expect(first).resolves.toEqual({ runId: 'run-first' });
  });

  it('queues a message whose start met a run taken up meanwhile; any other refusal reaches the sender', async () => {
    const { active, owners, calls } = ownersWith({
      start: (id) => {
        if (id === 'taken') throw new CatalystError('RUN_IN_PROGRESS', 'taken up');
        throw new CatalystError('HOST_UNAVAILABLE', 'no host');
      },
    });
    await expect(owners.of('taken').send('chat', 'x')).resolves.toEqual({ queued: { id: 'autopilot-q' } });
    await expect(owners.of('down').send('chat', 'y')).rejects.toMatchObject({ code: 'HOST_UNAVAILABLE' });
    expect(calls).toEqual(['run chat x', 'queued chat x', 'run chat y']);
    active.beginStopping();
    await expect(owners.of('idle').send('chat', 'z')).rejects.toMatchObject({ code: 'HOST_UNAVAILABLE' });
    expect(calls).toHaveLength(3);
  });
});
