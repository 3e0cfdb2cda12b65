import type { AddToQueueBody, AutopilotView, RunMode } from '@catalyst/protocol';
import { isCatalystError } from '../core/catalyst-error.ts';
import { KeyedLock } from '../ideas/keyed-lock.ts';
import type { ActiveRuns } from './active-runs.ts';
import { deletingClaim } from './run-claim.ts';

/** What the ideas' owners read and call besides the one run per idea (made after the owners, so asked for late). */
export interface OwnedParts {
  /** A person's run, started at once (runs-capability.ts); RUN_IN_PROGRESS when the idea's place is taken. */
  runs: { startRun(id: string, mode: RunMode, message: string): Promise<{ runId: string }> };
  /**
   * The queue running on the idea (not paused), if any; whether one holds it (running or paused); and a message put
   * behind what runs, as the next step of its queue (queue/autopilots.ts).
   */
  autopilots: {
    runningOn(id: string): string | undefined;
    isHolding(id: string): boolean;
    add(id: string, body: AddToQueueBody): Promise<AutopilotView>;
  };
  asides: { isAsking(id: string): boolean };
}

interface IdeaOwnerSources {
  active: ActiveRuns;
  parts: () => OwnedParts;
}

/** Where a person's message went: a run started for it, or the idea's queue. */
export type SentMessage = { runId: string } | { queued: AutopilotView };

/**
 * The ideas' owners (issue 41, item 1): `of(id)` is the one object that says what an idea is doing (its place in
 * `active`: a run, or the claim of a start on its way, a restore or a delete; the queue or autopilot on it; its
 * asides) and the one way a person's message reaches it. Every capability asks here whether an idea is busy,
 * instead of each putting the parts together.
 */
export class IdeaOwners {
  readonly #sources: IdeaOwnerSources;
  /** An idea's messages are taken one after another, in the order they came (two tabs, a review's send). */
  readonly #inbox = new KeyedLock();

  constructor(active: ActiveRuns, parts: () => OwnedParts) {
    this.#sources = { active, parts };
  }

  of(id: string): IdeaOwner {
    return new IdeaOwner(id, this.#sources, this.#inbox);
  }
}

export class IdeaOwner {
  readonly id: string;
  readonly #sources: IdeaOwnerSources;
  readonly #inbox: KeyedLock;

  constructor(id: string, sources: IdeaOwnerSources, inbox: KeyedLock) {
    this.id = id;
    this.#sources = sources;
    this.#inbox = inbox;
  }

  /** The idea is being deleted: nothing new starts on it. */
  isDeleting(): boolean {
    return this.#sources.active.get(this.id) === deletingClaim;
  }

  /** The autopilot or queue running on the idea (a paused one lets a person's run go), if any. */
  autopilotOn(): string | undefined {
    return this.#sources.parts().autopilots.runningOn(this.id);
  }

  /** A run holds the idea's place, or an autopilot runs on it: a person's run, a restore, a pre-warm wait. */
  isBusy(): boolean {
    return this.#sources.active.has(this.id) || this.autopilotOn() !== undefined;
  }

  /** Something writes to the idea's history now or next: a run, a queue between its steps (paused too), an aside. */
  isWriting(): boolean {
    return (
      this.#sources.active.has(this.id) ||
      this.#sources.parts().autopilots.isHolding(this.id) ||
      this.#sources.parts().asides.isAsking(this.id)
    );
  }

  /** The tag of the idea's running run (its session on the host): the ports it listens on are the idea's. */
  runTag(): string | undefined {
    return this.#sources.active.get(this.id)?.sessionId;
  }

  /**
   * A person's message (the composer's, a review sent): a run at once when the idea is idle, else the next step of
   * its queue. Messages are taken in the order they came: the second of two sent at once finds the first's run.
   */
  async send(mode: RunMode, message: string): Promise<SentMessage> {
    const taken = await this.#inbox.run(this.id, async (): Promise<Taken> => {
      this.#sources.active.refuseWhenStopping();
      if (this.isBusy()) return this.#enqueue(mode, message);
      const { held, cancel } = this.#sources.active.whenHeld(this.id);
      const starting = this.#sources.parts().runs.startRun(this.id, mode, message);
      // The idea's next message is taken once this run holds the idea's place (it then finds the idea busy), not
      // after the whole launch (a before-build checkpoint, a warm process taken over, a slow host).
      await Promise.race([held, starting.then(noop, noop)]);
      cancel();
      return { starting };
    });
    if (!('starting' in taken)) return taken;
    try {
      return await taken.starting;
    } catch (error) {
      // A run taken up from an earlier Catalyst as the start opened the history: this one waits behind it.
      if (!isCatalystError(error) || error.code !== 'RUN_IN_PROGRESS') throw error;
      return this.#inbox.run(this.id, () => this.#enqueue(mode, message));
    }
  }

  async #enqueue(mode: RunMode, message: string): Promise<SentMessage> {
    return { queued: await this.#sources.parts().autopilots.add(this.id, { mode, message, sendNow: false }) };
  }
}

/** What the inbox decided for a message: where it went, or the run starting for it. */
type Taken = SentMessage | { starting: Promise<{ runId: string }> };

function noop(): void {
  // The start's own outcome is read by the sender.
}
