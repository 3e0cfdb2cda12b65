import { randomUUID } from 'node:crypto';
import {
  MAX_ASIDES_PER_IDEA,
  asideViewsOf,
  isAsideEvent,
  spentUsd,
  type AskAsideBody,
  type AsideView,
  type IdeaMeta,
  type RelayEventDraft,
} from '@catalyst/protocol';
import type { BudgetReservations } from '../queue/core/budget-reservations.ts';
import { type BudgetHold } from '../queue/core/budget-reservations.ts';
import { CatalystError, isCatalystError } from '../core/catalyst-error.ts';
import { runAside, type AsideOutcome } from './aside-run.ts';
import { holdBudget, ideaRefusal } from '../queue/budget-holds.ts';
import type { AsidesPort } from '../service/ports.ts';
import { DEFAULT_QA } from '../runs/prompt-routing.ts';
import type { ServiceShared } from '../service/service-shared.ts';

/**
 * Question asides (AsidesPort, issue 30): each a `claude -p` forked from the idea's session (asides/aside-run.ts),
 * beside its run, never in its way: asides are not runs (ActiveRuns knows nothing of them), a run never waits for
 * one, and an aside needs nothing of a run but the session id in meta.json. At most MAX_ASIDES_PER_IDEA at once per
 * idea. Each is told in the history (`aside:asked`, then `aside:answered` or `aside:failed`), and its cost is added
 * to the idea's auxiliary cost, which its budget counts. Its cap (`--max-budget-usd`) is held against the idea's
 * budget beside the run's and the other asides' until its cost is added (issue 39, queue/budget-holds.ts).
 */

export const DEFAULT_ASIDE_TIMEOUT_MS = 10 * 60_000;
/** How many of the newest asides GET /api/ideas/:id/asides reads from the history. */
export const LISTED_ASIDES = 200;
const LISTED_BYTES = 16 * 1024 * 1024;

/**
 * The shared parts an aside uses: the small model of the options (`qa`, the idea's small model when it names none,
 * meta.qaModel first) and their inactivity limit (an aside is stopped when its claude prints nothing for that long);
 * the owners (an idea being deleted starts nothing new), the active runs (Catalyst shutting down), and the budgets
 * where the runs hold their caps too (run-launch.ts).
 */
export type AsidesOptions = Pick<
  ServiceShared,
  'options' | 'hosts' | 'logger' | 'histories' | 'locate' | 'owners' | 'active' | 'budgets'
> & { timeoutMs?: number };

interface GoingAside {
  controller: AbortController;
  done: Promise<void>;
}

export class Asides implements AsidesPort {
  readonly #options: AsidesOptions;
  readonly #going = new Map<string, Map<string, GoingAside>>();
  readonly #budgets: BudgetReservations;

  constructor(options: AsidesOptions) {
    this.#options = options;
    this.#budgets = options.budgets;
  }

  /** Whether the idea has an aside going: its history stays open meanwhile. */
  isAsking(id: string): boolean {
    return (this.#going.get(id)?.size ?? 0) > 0;
  }

  async askAside(id: string, body: AskAsideBody): Promise<AsideView> {
    this.#refuseWhenGoing(id);
    const { host, meta, hold } = await holdBudget(this.#budgets, id, { read: () => this.#read(id) });
    const going = this.#going.get(id) ?? new Map<string, GoingAside>();
    if (going.size >= MAX_ASIDES_PER_IDEA) {
      hold.release();
      throw new CatalystError(
        'TOO_MANY_ASIDES',
        `This idea has ${String(MAX_ASIDES_PER_IDEA)} asides waiting for an answer already; ask again once one is answered.`,
      );
    }
    const sessionId = requireSession(meta);
    const asideId = `aside-${id.slice('idea-'.length)}-${randomUUID()}`;
    const controller = new AbortController();
    // Held before the first await below, so that a burst of asks counts every one.
    let release: () => void = noop;
    const done = new Promise<void>((resolve) => {
      release = resolve;
    });
    going.set(asideId, { controller, done });
    this.#going.set(id, going);
    const model = body.model ?? meta.qaModel ?? (this.#options.options.qa ?? DEFAULT_QA).model;
    try {
      const history = await this.#options.histories.get(id);
      const asked = history.append({
        type: 'aside:asked',
        ideaId: id,
        asideId,
        question: body.question,
        model,
      });
      const job = { id, host, asideId, sessionId, model, question: body.question, hold };
      // Released once its cost is in meta.json (#answer adds it first).
      void this.#answer(job, controller.signal).finally(() => {
        hold.release();
        this.#forget(id, asideId);
        release();
      });
      const [view] = asideViewsOf([asked]);
      if (view === undefined) throw new Error('an aside:asked event makes no aside view');
      return view;
    } catch (error) {
      hold.release();
      this.#forget(id, asideId);
      release();
      throw error;
    }
  }

  /** The idea's meta.json, and what its budget leaves an aside; NO_SESSION before its first run. */
  async #read(id: string) {
    const { host, meta } = await this.#options.locate(id);
    this.#refuseWhenGoing(id);
    requireSession(meta);
    const leftUsd = meta.budgetUsd === undefined ? Number.POSITIVE_INFINITY : meta.budgetUsd - spentUsd(meta);
    const refusal = (heldUsd: number) => ideaRefusal({ meta, heldUsd, what: 'ask an aside' });
    return { host, meta, budget: { leftUsd, refusal } };
  }

  async listAsides(id: string): Promise<AsideView[]> {
    await this.#options.locate(id);
    const history = await this.#options.histories.get(id);
    const { events } = await history.latest({
      maxEvents: LISTED_ASIDES * 2,
      maxBytes: LISTED_BYTES,
      select: isAsideEvent,
    });
    return asideViewsOf(events);
  }

  /** Stops the idea's asides (it is being deleted) and resolves once they have ended. */
  async stopAllOf(id: string): Promise<void> {
    const going = [...(this.#going.get(id)?.values() ?? [])];
    for (const aside of going) aside.controller.abort();
    await Promise.all(going.map((aside) => aside.done));
  }

  /** Shutdown: every aside is stopped, and said so in its history. */
  async stopAll(): Promise<void> {
    await Promise.all([...this.#going.keys()].map((id) => this.stopAllOf(id)));
  }

  #refuseWhenGoing(id: string): void {
    if (this.#options.active.isStopping())
      throw new CatalystError('HOST_UNAVAILABLE', 'Catalyst is shutting down.');
    if (this.#options.owners.of(id).isDeleting())
      throw new CatalystError('RUN_IN_PROGRESS', 'This idea is being deleted.');
  }

  #forget(id: string, asideId: string): void {
    const going = this.#going.get(id);
    going?.delete(asideId);
    if (going?.size === 0) this.#going.delete(id);
    this.#options.histories.evictIdle();
  }

  async #answer(job: AsideJob, signal: AbortSignal): Promise<void> {
    const { id, asideId } = job;
    const started = Date.now();
    const outcome = await this.#run(job, signal).catch((error: unknown): AsideOutcome => ({
      ok: false,
      code: isCatalystError(error) ? error.code : 'INTERNAL',
      message: isCatalystError(error) ? error.message : 'The aside could not be started.',
    }));
    try {
      if (outcome.costUsd !== undefined && outcome.costUsd > 0) await this.#addCost(job, outcome.costUsd);
      const history = await this.#options.histories.get(id);
      history.append(eventOf(id, asideId, outcome));
    } catch (error) {
      this.#options.logger.error({ err: error, ideaId: id, asideId }, 'could not record an aside’s ending');
    }
    this.#options.logger.info(
      { ideaId: id, asideId, ok: outcome.ok, costUsd: outcome.costUsd, ms: Date.now() - started },
      'aside ended',
    );
  }

  async #run(job: AsideJob, signal: AbortSignal): Promise<AsideOutcome> {
    const { hosts } = this.#options;
    const [store, claude] = await Promise.all([hosts.store(job.host), hosts.claude(job.host)]);
    return runAside({
      host: hosts.get(job.host).host,
      claudePath: claude.claudePath,
      cwd: store.paths(job.id).project,
      env: { PATH: claude.path },
      model: job.model,
      sessionId: job.sessionId,
      question: job.question,
      maxBudgetUsd: Number.isFinite(job.hold.capUsd) ? job.hold.capUsd : undefined,
      timeoutMs: this.#options.timeoutMs ?? DEFAULT_ASIDE_TIMEOUT_MS,
      inactivityMs: this.#options.options.inactivityTimeoutMs,
      signal,
    });
  }

  async #addCost(job: AsideJob, costUsd: number): Promise<void> {
    const store = await this.#options.hosts.store(job.host);
    await store.update(job.id, (meta) => ({
      ...meta,
      totals: { ...meta.totals, auxiliaryCostUsd: meta.totals.auxiliaryCostUsd + costUsd },
    }));
  }
}

function noop(): void {
  // Replaced at once by the promise's resolve.
}

interface AsideJob {
  id: string;
  host: string;
  asideId: string;
  sessionId: string;
  model: string;
  question: string;
  hold: BudgetHold;
}

function requireSession(meta: IdeaMeta): string {
  if (meta.sessionId !== undefined) return meta.sessionId;
  throw new CatalystError(
    'NO_SESSION',
    'This idea has no Claude session yet: an aside asks the conversation so far, so send a first message.',
  );
}

function eventOf(ideaId: string, asideId: string, outcome: AsideOutcome): RelayEventDraft {
  if (outcome.ok) {
    const { text, costUsd, durationMs } = outcome;
    return { type: 'aside:answered', ideaId, asideId, text, costUsd, durationMs };
  }
  const { code, message, costUsd } = outcome;
  return {
    type: 'aside:failed',
    ideaId,
    asideId,
    error: { code, message },
    ...(costUsd === undefined ? {} : { costUsd }),
  };
}
