import type { Logger } from 'pino';
import type { RunMode } from '@catalyst/protocol';
import { checkIdeaId } from '../ideas/idea-store.ts';
import { prewarm, type RunLaunchContext } from './run-launch.ts';

/**
 * Which claude waits for an idea's next turn (issue 11, warm turns; issue 30, mode switches): one in the mode the
 * page's composer shows, once the page has said it (its `mode` frame), else in the idea's last mode. A switch
 * pre-warms the other mode at once, so the first Build after a chat starts warm; a run's end pre-warms the shown
 * mode when the run's was another. Pre-warms run in the background, one at a time per idea: a request meanwhile
 * is done again once the one on its way ends.
 */

export interface PrewarmsOptions {
  launching: RunLaunchContext;
  logger: Logger;
  /** 0: no warm sessions, so nothing is pre-warmed. */
  warmPerHost: number | undefined;
  /**
   * The idea has a run, its place is held, or another Catalyst follows its run: nothing is pre-warmed now (the run's
   * end asks again).
   */
  isBusy: (id: string) => boolean;
  /** The idea is being deleted, or Catalyst stops: a pre-warm on its way stops its claude. */
  isGoing: (id: string) => boolean;
}

export class Prewarms {
  readonly #options: PrewarmsOptions;
  readonly #going = new Set<string>();
  readonly #isAskedAgain = new Set<string>();
  /** The mode each idea's composer shows, as its page last said (kept while Catalyst runs; a cache). */
  readonly #shown = new Map<string, RunMode>();

  constructor(options: PrewarmsOptions) {
    this.#options = options;
  }

  /** The mode the page's composer shows for the idea, if a page said so. */
  shownMode(id: string): RunMode | undefined {
    return this.#shown.get(id);
  }

  /** The page shows `mode` in the idea's composer (IDEA_NOT_FOUND for no such idea): its claude waits in it. */
  async show(id: string, mode: RunMode): Promise<void> {
    checkIdeaId(id);
    await this.#options.launching.locate(id);
    this.#shown.set(id, mode);
    if (!this.#options.isBusy(id)) this.prewarm(id);
  }

  /** A run of the idea has ended: when its page shows another mode, a claude of that mode is pre-warmed. */
  afterRun(id: string): void {
    if (this.#shown.has(id) && !this.#options.isBusy(id)) this.prewarm(id);
  }

  /**
   * In the background (run-launch.ts, prewarm); not when warm sessions are off. A turn sent meanwhile waits for it
   * (warm-sessions.ts) instead of starting a second claude.
   */
  prewarm(id: string): void {
    if (this.#options.warmPerHost === 0 || this.#options.isBusy(id)) return;
    if (this.#going.has(id)) {
      this.#isAskedAgain.add(id);
      return;
    }
    this.#going.add(id);
    const mode = this.#shown.get(id) ?? 'last';
    const pending = prewarm(this.#options.launching, { id, mode }, () => this.#options.isGoing(id))
      .catch((error: unknown) => {
        this.#options.logger.warn({ ideaId: id, err: error }, 'could not pre-warm a session');
      })
      .finally(() => {
        this.#going.delete(id);
        if (this.#isAskedAgain.delete(id) && !this.#options.isBusy(id) && !this.#options.isGoing(id)) {
          this.prewarm(id);
        }
      });
    this.#options.launching.warm.starting(id, pending);
  }

  /** The idea is gone. */
  forget(id: string): void {
    this.#shown.delete(id);
  }
}
