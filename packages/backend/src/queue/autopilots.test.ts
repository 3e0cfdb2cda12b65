import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { AutopilotView, RelayEvent, RelayEventDraft, RunMode } from '@catalyst/protocol';
import type { RunEnding } from '../runs/core/run-ending.ts';
import type { IdeaHistory } from '../ideas/event-history.ts';
import type { ActiveRun } from '../runs/active-run.ts';
import { completed as completedRun } from '../../test/support/queue-test-kit.ts';
import { ActiveRuns } from '../runs/active-runs.ts';
import { Autopilots, type AutopilotsOptions } from './autopilots.ts';

// The queue's engine (issue 30) with the idea's place, its history and its runs in memory: what a person does while
// a step is starting or while the queue writes its end, and how a queue whose last message fails ends. The same
// engine against the real CLI, sshd and history is in test/queue.test.ts.

const ideaId = 'idea-0123456789abcdef';

interface Launched {
  mode: RunMode;
  message: string;
  run: ActiveRun;
  end: (ending: RunEnding) => void;
}

function setUp() {
  const events: RelayEvent[] = [];
  const history = {
    append(draft: RelayEventDraft): RelayEvent {
      const event = { ...draft, seq: events.length + 1, ts: new Date().toISOString() };
      events.push(event);
      return event;
    },
    latest(request: { select?: (event: RelayEvent) => boolean }) {
      return Promise.resolve({
        events: events.filter((event) => request.select?.(event) ?? true),
        isComplete: true,
      });
    },
  } as unknown as IdeaHistory;
  const active = new ActiveRuns();
  const launched: Launched[] = [];
  /** Each launch waits until the test lets it go on: a step's run takes its time to start (SSH, a checkpoint). */
  const starting: (() => void)[] = [];
  let marked: string | undefined;
  /** False: a cancel does not reach the run (it ends by itself, as one whose turn was just over). */
  let isCancelHonoured = true;
  /** Resolves the next write of meta.json when the test lets it. */
  let holdMark: Promise<void> | undefined;
  const options: AutopilotsOptions = {
    launch: async (_id, mode, message) => {
      await new Promise<void>((resolve) => starting.push(resolve));
      let end: (ending: RunEnding) => void = () => undefined;
      const ended = new Promise<RunEnding>((resolve) => {
        end = (ending) => {
          active.release(ideaId);
          resolve(ending);
        };
      });
      const runId = `run-0123456789abcdef-${String(launched.length + 1).padStart(8, '0')}-0000-4000-8000-000000000000`;
      const run: ActiveRun = {
        runId,
        ended,
        cancel: () => {
          if (isCancelHonoured) end({ outcome: 'cancelled' });
        },
      };
      active.hold(ideaId, run);
      launched.push({ mode, message, run, end });
      return run;
    },
    history: () => Promise.resolve(history),
    activeRun: (id) => active.get(id),
    whenFree: (id) => active.whenFree(id),
    ideaBudgetAllows: () => Promise.resolve(true),
    questionPolicyOf: () => Promise.resolve('human'),
    mark: async (_id, autopilotId) => {
      await holdMark;
      marked = autopilotId;
    },
    logger: pino({ level: 'silent' }),
  };
  const autopilots = new Autopilots(options);
  const completed = (message: string): RunEnding => completedRun(0.01, message);
  const until = async (check: () => boolean) => {
    for (let tries = 0; tries < 1000 && !check(); tries += 1)
      await new Promise((resolve) => setImmediate(resolve));
    expect(check()).toBe(true);
  };
  /** Once the next step's run is starting, lets it start, and waits until it is launched. */
  const launchNext = async () => {
    await until(() => starting.length === 1);
    const before = launched.length;
    starting.shift()?.();
    await until(() => launched.length === before + 1);
  };
  return {
    autopilots,
    launchNext,
    /** A next Catalyst's engine on the same idea (its history, its runs). */
    restarted: () => new Autopilots(options),
    events,
    launched,
    starting,
    completed,
    until,
    marked: () => marked,
    honourCancels: (value: boolean) => {
      isCancelHonoured = value;
    },
    holdMarks: () => {
      let release: () => void = () => undefined;
      holdMark = new Promise((resolve) => {
        release = resolve;
      });
      return () => {
        holdMark = undefined;
        release();
      };
    },
  };
}

const summary = (view: AutopilotView | null) =>
  view?.steps.map(
    (step) =>
      `${step.message}: ${step.state}${step.result?.result === undefined ? '' : ` (${step.result.result})`}`,
  );

describe('the queue engine', () => {
  it('just after a restart, a message waits for the queue the last Catalyst left, and joins it', async () => {
    const { autopilots, launchNext, restarted, launched, completed, until } = setUp();
    const left = await autopilots.add(ideaId, { mode: 'chat', message: 'A', sendNow: false });
    await launchNext();
    // The last Catalyst stops with A's run going on (taken up by the next one, as runs are): its loop writes nothing.
    const stopped = autopilots.stop({ keepRuns: true });

    const next = restarted();
    let takeUpDone: () => void = () => undefined;
    next.takingUp(new Promise<void>((resolve) => (takeUpDone = resolve)));
    let added: AutopilotView | undefined;
    const adding = next.add(ideaId, { mode: 'chat', message: 'B', sendNow: false }).then((view) => {
      added = view;
    });
    // Not a second queue begun beside the one left: the message waits for it to be taken up.
    for (let tick = 0; tick < 20; tick += 1) await new Promise((resolve) => setImmediate(resolve));
    expect(added).toBeUndefined();
    await next.resume(ideaId, left.id);
    takeUpDone();
    await adding;
    expect(added?.id).toBe(left.id);
    expect(summary(added ?? null)).toEqual(['A: running', 'B: pending']);

    launched[0]?.end(completed('A done'));
    await launchNext();
    launched[1]?.end(completed('B done'));
    await until(() => !next.isHolding(ideaId));
    expect(launched.map((one) => one.message)).toEqual(['A', 'B']);
    await stopped;
  });

  it('just after a restart, a message for an idea with no queue left is not held up by the take-up', async () => {
    const { autopilots, launchNext, launched, completed, until } = setUp();
    // A take-up that does not end within the test (a host slow to answer).
    autopilots.takingUp(new Promise(() => undefined));
    const view = await autopilots.add(ideaId, { mode: 'chat', message: 'A', sendNow: false });
    expect(summary(view)).toEqual(['A: pending']);
    await launchNext();
    launched[0]?.end(completed('A done'));
    await until(() => !autopilots.isHolding(ideaId));
  });

  it('takes a step out of a person’s hands while its run starts: moving another to the top keeps each sent once', async () => {
    const { autopilots, launchNext, launched, starting, completed, until } = setUp();
    await autopilots.add(ideaId, { mode: 'chat', message: 'A', sendNow: false });
    const view = await autopilots.add(ideaId, { mode: 'chat', message: 'B', sendNow: false });
    await until(() => starting.length === 1);
    // A's run is starting: A is no longer a waiting message, B may move, but not before A.
    const a = view.steps[0];
    const b = view.steps[1];
    if (a === undefined || b === undefined) throw new Error('two steps expected');
    await expect(autopilots.updateStep(ideaId, a.id, { message: 'A, edited' })).rejects.toMatchObject({
      code: 'QUEUE_STEP_NOT_FOUND',
    });
    const moved = await autopilots.updateStep(ideaId, b.id, { position: 0 });
    expect(summary(moved)).toEqual(['A: pending', 'B: pending']);
    starting.shift()?.();
    await until(() => launched.length === 1);
    launched[0]?.end(completed('A done'));
    await launchNext();
    launched[1]?.end(completed('B done'));
    await until(() => !autopilots.isHolding(ideaId));
    expect(launched.map((one) => one.message)).toEqual(['A', 'B']);
    expect(summary(await autopilots.latest(ideaId))).toEqual([
      'A: completed (A done)',
      'B: completed (B done)',
    ]);
  });

  it('a message that comes while a queue writes its end begins a new queue, and is sent', async () => {
    const { autopilots, launchNext, launched, completed, until, holdMarks } = setUp();
    const first = await autopilots.add(ideaId, { mode: 'chat', message: 'A', sendNow: false });
    await launchNext();
    const release = holdMarks();
    launched[0]?.end(completed('A done'));
    await until(() => autopilots.runningOn(ideaId) === undefined);
    const late = autopilots.add(ideaId, { mode: 'chat', message: 'Late', sendNow: false });
    release();
    const second = await late;
    expect(second.id).not.toBe(first.id);
    await launchNext();
    launched[1]?.end(completed('Late done'));
    await until(() => !autopilots.isHolding(ideaId));
    expect(summary(await autopilots.get(ideaId, first.id))).toEqual(['A: completed (A done)']);
    expect(summary(await autopilots.get(ideaId, second.id))).toEqual(['Late: completed (Late done)']);
  });

  it('a queue whose last message fails ends failed instead of waiting with nothing to send', async () => {
    const { autopilots, launchNext, launched, until, marked } = setUp();
    const view = await autopilots.add(ideaId, { mode: 'build', message: 'Only', sendNow: false });
    await launchNext();
    launched[0]?.end({ outcome: 'failed', error: { code: 'CLI_FAILED', message: 'It broke.' } });
    await until(() => !autopilots.isHolding(ideaId));
    const ended = await autopilots.get(ideaId, view.id);
    expect(ended).toMatchObject({ state: 'failed', error: { message: 'Step 1 failed: It broke.' } });
    expect(marked()).toBeUndefined();
  });

  it('a send-now whose target ended before the stop leaves a later stop to pause the queue', async () => {
    const { autopilots, launchNext, launched, completed, until, events, honourCancels } = setUp();
    await autopilots.add(ideaId, { mode: 'chat', message: 'A', sendNow: false });
    await autopilots.add(ideaId, { mode: 'chat', message: 'B', sendNow: false });
    const view = await autopilots.add(ideaId, { mode: 'chat', message: 'C', sendNow: false });
    await launchNext();
    // C is sent now, but A's turn was over already: A completes by itself.
    honourCancels(false);
    await autopilots.sendStepNow(ideaId, view.steps[2]?.id ?? '');
    launched[0]?.end(completed('A done'));
    honourCancels(true);
    await launchNext();
    expect(launched[1]?.message).toBe('C');
    // The person stops C: the queue waits (B is still to send), as any stop of a queued message does.
    launched[1]?.run.cancel();
    await until(() => events.some((event) => event.type === 'autopilot:paused'));
    expect(events.find((event) => event.type === 'autopilot:paused')).toMatchObject({ reason: 'cancelled' });
    await autopilots.clear(ideaId);
    expect(autopilots.isHolding(ideaId)).toBe(false);
  });
});
