import { randomUUID } from 'node:crypto';
import type { AutopilotView, QueueKind, QueuedStep, QuestionPolicy } from '@catalyst/protocol';
import { CatalystError } from '../core/catalyst-error.ts';
import { newQueue } from './core/queue-machine.ts';
import { settlesWithin } from '../core/settles-within.ts';
import { readAutopilotView } from './autopilot-views.ts';
import { newIdeaNamingId } from '../runs/run-views.ts';
import { runningQueue, type RunningQueue } from './autopilot-drive.ts';
import type { AutopilotsOptions } from './autopilots.ts';

/**
 * The queues of this Catalyst, one per idea (autopilots.ts): those that run, wait for a person or write their end,
 * and those on their way (their history opening, meta.json marked), which take the idea's slot already. Just after
 * Catalyst's start, a person's queue change waits for the queue an earlier Catalyst left to be taken up.
 */

/** The longest a queue change just after Catalyst's start waits for the queues an earlier Catalyst left. */
const TAKE_UP_WAIT_MS = 15_000;

/** What a new queue is made of: its kind, first steps and policies. */
export interface QueueOpening {
  kind: QueueKind;
  steps: QueuedStep[];
  questionPolicy: QuestionPolicy | undefined;
  stopOnFailure: boolean;
  maxBudgetUsd: number | undefined;
  /** An autopilot is refused while a run goes; a queue waits for it. */
  refuseWhileRunning: boolean;
}

export class AutopilotQueues {
  readonly #options: AutopilotsOptions;
  /** By idea. */
  readonly #running = new Map<string, RunningQueue>();
  /** Queues on their way: the idea's slot is taken. By idea. */
  readonly #opening = new Map<string, Promise<RunningQueue | undefined>>();
  /**
   * Catalyst's start is taking up the queues an earlier Catalyst left (`takingUp`): waited for, up to
   * TAKE_UP_WAIT_MS.
   */
  #takingUp: Promise<void> | undefined;
  /** That take-up is still under way (also past the wait's limit). */
  #isTakingUp = false;

  constructor(options: AutopilotsOptions) {
    this.#options = options;
  }

  /** Catalyst's start takes up the runs and queues an earlier Catalyst left (`done`). */
  takingUp(done: Promise<unknown>): void {
    this.#isTakingUp = true;
    const ended = () => {
      this.#isTakingUp = false;
    };
    // A host that cannot be reached holds the take-up up: past the limit, what is asked is answered as it stands.
    const limited = settlesWithin(done.then(ended, ended), TAKE_UP_WAIT_MS).then(() => undefined);
    this.#takingUp = limited;
    void limited.then(() => {
      if (this.#takingUp === limited) this.#takingUp = undefined;
    });
  }

  /** The idea's queue that runs, waits for a person or writes its end, if any. */
  heldOn(ideaId: string): RunningQueue | undefined {
    return this.#running.get(ideaId);
  }

  all(): RunningQueue[] {
    return [...this.#running.values()];
  }

  isTaken(ideaId: string): boolean {
    return this.#running.has(ideaId) || this.#opening.has(ideaId);
  }

  hold(running: RunningQueue): void {
    this.#running.set(running.ideaId, running);
  }

  release(running: RunningQueue): void {
    if (this.#running.get(running.ideaId) === running) this.#running.delete(running.ideaId);
  }

  async open(ideaId: string, spec: QueueOpening): Promise<RunningQueue> {
    // The idea's slot is taken before anything is awaited: two starts at once never both pass.
    const opening = this.#openQueue(ideaId, spec);
    this.#opening.set(ideaId, opening);
    try {
      const running = await opening;
      this.hold(running);
      return running;
    } finally {
      this.#opening.delete(ideaId);
    }
  }

  async #openQueue(ideaId: string, spec: QueueOpening): Promise<RunningQueue> {
    const id = newIdeaNamingId('ap', ideaId);
    const history = await this.#options.history(ideaId);
    // A queue an earlier Catalyst left, still being taken up (past the wait's limit): not a second one beside it.
    if (this.#isTakingUp && (await this.queue(ideaId)) !== null) {
      throw new CatalystError(
        'RUN_IN_PROGRESS',
        'The queue an earlier Catalyst left on this idea is still being taken up; try again in a moment.',
      );
    }
    if (spec.refuseWhileRunning && this.#options.activeRun(ideaId) !== undefined) {
      throw new CatalystError(
        'RUN_IN_PROGRESS',
        'This idea has a run going; start the autopilot once it has ended.',
      );
    }
    const shownPolicy = spec.questionPolicy ?? (await this.#options.questionPolicyOf(ideaId));
    // Named in meta.json before it exists in the history: a restart never loses a started queue.
    await this.#options.mark(ideaId, id);
    const steps = spec.steps.map((step) => ({ ...step, id: step.id ?? newStepId() }));
    const { kind, questionPolicy, stopOnFailure, maxBudgetUsd } = spec;
    const { state, event } = newQueue(
      { ideaId, id, kind, steps, questionPolicy, stopOnFailure, maxBudgetUsd },
      shownPolicy,
    );
    const running = runningQueue(state, history);
    history.append(event);
    return running;
  }

  /**
   * The idea's queue, once one on its way has opened (undefined when none is, or its opening failed); just after
   * Catalyst's start, once the queue an earlier Catalyst left on the idea may have been taken up.
   */
  async queueOn(ideaId: string): Promise<RunningQueue | undefined> {
    const here = async () =>
      this.#running.get(ideaId) ?? (await this.#opening.get(ideaId)?.catch(() => undefined));
    const found = await here();
    const takingUp = this.#takingUp;
    if (found !== undefined || takingUp === undefined) return found;
    // Only an idea with a queue going in its history (one left) waits; the others are answered at once.
    if ((await this.queue(ideaId).catch(() => null)) === null) return here();
    await takingUp;
    return here();
  }

  /** The idea's queue while it runs or waits for a person, to change; NO_QUEUE otherwise. */
  async queueOf(ideaId: string): Promise<RunningQueue> {
    const running = await this.queueOn(ideaId);
    if (running !== undefined && !running.state.isEnding) return running;
    const view = running === undefined ? await this.queue(ideaId) : null;
    throw new CatalystError(
      'NO_QUEUE',
      view === null
        ? 'Nothing is queued on this idea.'
        : 'This queue is not followed by this Catalyst (yet): it goes on once Catalyst has taken up its run.',
    );
  }

  /** The idea's current or last autopilot; null when it never had one. */
  async latest(ideaId: string): Promise<AutopilotView | null> {
    return (await readAutopilotView(await this.#options.history(ideaId))) ?? null;
  }

  /** The idea's queue while it runs or waits for a person; null otherwise. */
  async queue(ideaId: string): Promise<AutopilotView | null> {
    const view = await this.latest(ideaId);
    return view?.state === 'running' || view?.state === 'paused' ? view : null;
  }
}

export function newStepId(): string {
  return `q-${randomUUID().slice(0, 8)}`;
}
