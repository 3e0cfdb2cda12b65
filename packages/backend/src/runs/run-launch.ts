import type { Logger } from 'pino';
import {
  type IdeaMeta,
  type IdeaStatus,
  type QuestionPolicy,
  type RelayEvent,
  type RelayEventDraft,
  type RunMode,
} from '@catalyst/protocol';
import type { BudgetReservations } from '../queue/core/budget-reservations.ts';
import { capOf, type BudgetHold } from '../queue/core/budget-reservations.ts';
import type { RunEnding } from './core/run-ending.ts';
import type { IdeaHistory } from '../ideas/event-history.ts';
import type { ResumePoint } from './resume-point.ts';
import { SessionProcess } from './session-process.ts';
import { newSessionId, sessionSpec, warmKeyOf } from './session-spec.ts';
import type { WarmSessions } from './warm-sessions.ts';
import type { Checkpoints } from '../checkpoints/checkpoints.ts';
import type { ActiveRun, PromptControls } from './active-run.ts';
import { startRunDriver } from './run-driver.ts';
import type { HostRegistry } from '../hosts/host-registry.ts';
import type { IdeaHistories } from '../ideas/idea-histories.ts';
import { budgetOf, holdBudget, takeFittingWarm, withCap } from '../queue/budget-holds.ts';
import { addTotals } from '../ideas/idea-meta-changes.ts';
import { statusAfterRun, statusAtStart } from '../ideas/idea-status.ts';
import type { LiveSubscribers } from './live-subscribers.ts';
import * as routing from './prompt-routing.ts';

/**
 * The run start path of the service (runs-capability.ts claims the idea first): the idea's status, the run driver
 * wired to the idea's history, its subscribers and its meta.json, and the bookkeeping when the run ends.
 */

export interface RunLaunchOptions {
  hosts: HostRegistry;
  logger: Logger;
  inactivityTimeoutMs: number;
  maxRunMs: number;
  /** CATALYST_DETACHED_LIMIT_MS: a turn with no Catalyst attached is stopped on the host after this long. */
  detachedLimitMs?: number | undefined;
  /** CATALYST_LEASE_MS: a session counts its Catalyst gone after this long without a heartbeat. */
  leaseMs?: number | undefined;
  /** CATALYST_WARM_IDLE_MS: a session waits this long for its next turn. */
  warmIdleMs?: number | undefined;
  qa?: routing.QaSettings;
}

export interface RunLaunchContext {
  options: RunLaunchOptions;
  histories: IdeaHistories;
  live: LiveSubscribers;
  warm: WarmSessions;
  checkpoints: Checkpoints;
  locate: (id: string) => Promise<{ host: string; meta: IdeaMeta }>;
  /** What the idea's claude processes hold of its budget (issue 39): the one the asides hold theirs in. */
  budgets: BudgetReservations;
  /** The run's bookkeeping is done (or failed): the idea may start another run. */
  release: (id: string) => void;
}

export interface RunRequest {
  id: string;
  runId: string;
  mode: RunMode;
  message: string;
  /** Set by an autopilot for its runs: they follow its question policy and its budget, not the idea's alone. */
  overrides?: RunOverrides | undefined;
  /**
   * The mode the idea's next turn is expected in, asked when this turn ends (the composer's, an autopilot's next
   * step): a process of another mode is not kept but ended at once (warm-sessions.ts, retire).
   */
  nextMode?: (() => RunMode | undefined) | undefined;
}

export interface RunOverrides {
  questionPolicy?: QuestionPolicy;
  /** A cap besides the idea's own budget; `key` names it (a process started under it serves only it). */
  budgetCap?: { key: string; remainingUsd: number };
  /** The mode of the autopilot's next step: when it is another, this step's process ends with its turn. */
  nextMode?: RunMode | undefined;
}

/**
 * Starts a run, or (`resumed`) takes up one an earlier Catalyst left going in its session on the host: then the
 * history is the one being opened (it must not be asked for again) and the run has started already.
 */
export async function launchRun(
  context: RunLaunchContext,
  request: RunRequest,
  resumed?: { history: IdeaHistory; point: ResumePoint },
): Promise<ActiveRun> {
  const { id, mode } = request;
  // The history first: opening it ends a run a killed Catalyst left open, which changes the status read next.
  // If that failed when the history opened, it must succeed now, or this run does not start.
  const history = resumed?.history ?? (await context.histories.forRun(id));
  // Held until the run's cost is in meta.json (recordEnding), or released here when it does not start.
  const held = await holdBudget(context.budgets, id, {
    read: () => sessionInputFor(context, { id, turnMode: mode, overrides: request.overrides }, history),
    isTakenUp: resumed !== undefined,
  });
  try {
    return await startHeld(context, { request, history, resumed }, held);
  } catch (error) {
    held.hold.release();
    throw error;
  }
}

async function startHeld(
  context: RunLaunchContext,
  launch: { request: RunRequest; history: IdeaHistory; resumed: { point: ResumePoint } | undefined },
  input: SessionInput & { hold: BudgetHold },
): Promise<ActiveRun> {
  const { request, history, resumed } = launch;
  const { id, runId, mode, message } = request;
  const { hosts, logger } = context.options;
  const { host, meta, store, key, hold } = input;
  const session = withCap(input.session, input.budget.key, hold.capUsd);
  const registered = hosts.get(host);
  // The idea's warm process when it runs this command and fits the hold; any other ends first (warm-sessions.ts).
  const warm =
    resumed === undefined
      ? await takeFittingWarm({ warm: context.warm, budgets: context.budgets }, { id, key, hold })
      : undefined;
  // A taken-up process's cap was set by the Catalyst before: unknown, so it serves no later turn under a budget.
  const processCapUsd =
    resumed !== undefined
      ? undefined
      : warm === undefined
        ? hold.capUsd
        : context.budgets.capOfProcess(warm.process);
  if (resumed === undefined) {
    // A build starts from a checkpoint of what project/ holds (made when it differs from the last one), so that it
    // can be undone, and its change is Claude's alone.
    if (mode === 'build') await context.checkpoints.beforeBuild(id, runId, message, history);
    if (meta.restoreNote !== undefined) await store.update(id, ({ restoreNote: _said, ...rest }) => rest);
    await setStatus(context, { id, host, runId, status: statusAtStart(meta.status, mode) }, history);
  }
  const how = resumed === undefined ? (warm === undefined ? 'new' : 'warm') : 'taken up';
  logger.info({ ideaId: id, runId, mode, host, process: how }, 'run started');
  const run: ActiveRun = startRunDriver({
    ...session,
    host: registered.host,
    ideaId: id,
    runId,
    message,
    ...(resumed === undefined && meta.restoreNote !== undefined ? { preface: meta.restoreNote } : {}),
    ...(meta.sessionId === undefined ? {} : { sessionId: meta.sessionId }),
    recap: routing.sessionRecapFor(meta, history, runId),
    inactivityTimeoutMs: context.options.inactivityTimeoutMs,
    ...(resumed === undefined ? {} : { resume: resumed.point }),
    ...(warm === undefined ? {} : { warm }),
    onKeep: (kept) => {
      if (processCapUsd !== undefined) context.budgets.noteCap(kept.process, processCapUsd);
      const next = request.nextMode?.();
      if (next === undefined || next === mode) context.warm.keep(id, host, key, kept);
      else context.warm.retire(id, kept);
    },
    emit: (draft: RelayEventDraft): RelayEvent => history.append(draft),
    relayLive: (frame) => {
      context.live.send(id, frame);
    },
    onSession: async (sessionId) => {
      await store.update(id, (current) => ({ ...current, sessionId }));
    },
    onFinish: (ending) => recordEnding(context, { ...request, host, hold, prompts: run.prompts }, ending),
    logger,
  });
  return run;
}

/**
 * Pre-warms the idea (a person opened it, or switched the composer's mode): a claude process in `turnMode` (`last`:
 * its last mode) waits in a session for the first message, so that turn starts warm too (the CLI prints nothing
 * and creates no session until then). A waiting process of another command is ended first (at once when it never
 * took a turn). Nothing happens when the idea already has a fitting one, or is going away (`isGoing`: deleted,
 * Catalyst stopping); a failure is only logged (the turn then starts its own).
 */
export async function prewarm(
  context: RunLaunchContext,
  request: { id: string; mode: RunMode | 'last' },
  isGoing: () => boolean,
): Promise<void> {
  const { id } = request;
  const history = await context.histories.get(id);
  const input = await sessionInputFor(context, { id, turnMode: request.mode }, history);
  const { host, meta, key, budget } = input;
  // Holds nothing while it waits (it spends nothing then): the turn that takes it holds its rest, if it fits.
  const capUsd = capOf({ leftUsd: budget.leftUsd, heldUsd: context.budgets.heldUsd(id) });
  // An idea that has spent its budget (or whose claudes hold it) runs nothing now: nothing to wait for.
  if (isGoing() || context.warm.keyOf(id) === key || capUsd === undefined) return;
  const session = withCap(input.session, budget.key, capUsd);
  const { mode } = session;
  await context.warm.drop(id, key);
  if (isGoing() || context.warm.has(id)) return;
  const process = await SessionProcess.start(
    sessionSpec(session, meta.sessionId),
    context.options.hosts.get(host).host.jobs,
    newSessionId(id),
  );
  if (isGoing() || context.warm.has(id)) {
    // Gone before this resolves: a delete waits for it (warm-sessions.ts) before the folder goes.
    process.run.cancel();
    await process.over;
    return;
  }
  context.budgets.noteCap(process, capUsd);
  context.warm.keepFresh(id, host, key, { process, mode, costBaseUsd: 0 });
  context.options.logger.info({ ideaId: id, mode, host }, 'pre-warmed a session');
}

type SessionInput = Awaited<ReturnType<typeof sessionInputFor>>;

/**
 * Everything a session of the idea is started with for a turn in `mode` (`last`: the idea's last mode, chat if it
 * has none) but its cap (`withCap`), what its budget leaves, and its warm key (session-spec.ts).
 */
async function sessionInputFor(
  context: RunLaunchContext,
  turn: { id: string; turnMode: RunMode | 'last'; overrides?: RunOverrides | undefined },
  history: IdeaHistory,
) {
  const { id, turnMode, overrides = {} } = turn;
  const { hosts } = context.options;
  const { host, meta } = await context.locate(id);
  const mode = turnMode === 'last' ? (meta.lastMode ?? 'chat') : turnMode;
  const budget = budgetOf(meta, overrides.budgetCap);
  const store = await hosts.store(host);
  const claude = await hosts.claude(host);
  const policy = overrides.questionPolicy ?? meta.questionPolicy;
  const prompts = routing.promptOptionsFor(
    { ...meta, questionPolicy: policy },
    context.options.qa ?? routing.DEFAULT_QA,
    history,
  );
  const session = {
    mode,
    cwd: store.paths(id).project,
    claudePath: claude.claudePath,
    env: { PATH: claude.path },
    ...prompts,
    maxDurationMs: context.options.maxRunMs,
    ...(context.options.detachedLimitMs === undefined
      ? {}
      : { detachedLimitMs: context.options.detachedLimitMs }),
    ...(context.options.leaseMs === undefined ? {} : { leaseMs: context.options.leaseMs }),
    ...(context.options.warmIdleMs === undefined ? {} : { warmIdleMs: context.options.warmIdleMs }),
  };
  // The key names the budget, not the cap: a warm process started under it may serve the turn (takeFittingWarm).
  return { host, meta, store, session, key: warmKeyOf(withCap(session, budget.key, 1)), budget };
}

async function recordEnding(
  context: RunLaunchContext,
  run: RunRequest & { host: string; hold: BudgetHold; prompts?: PromptControls | undefined },
  ending: RunEnding,
): Promise<void> {
  const { id, host, runId, mode } = run;
  try {
    // Whatever the outcome, the files are what they are: a build ends with a checkpoint (never throws).
    if (mode === 'build') {
      await context.checkpoints.afterBuild(id, runId, run.message, await context.histories.get(id));
    }
    const store = await context.options.hosts.store(host);
    const meta = await store.update(id, (current) =>
      addTotals(current, { mode, ending, stats: run.prompts?.stats() }),
    );
    const status = statusAfterRun(meta.status, mode, ending.outcome, ending.error?.code);
    await setStatus(context, { id, host, runId, status }, await context.histories.get(id));
  } finally {
    // After its cost is in meta.json: a start that reads meta.json then counts it.
    run.hold.release();
    context.release(id);
  }
  const { outcome, result } = ending;
  context.options.logger.info(
    { ideaId: id, runId, mode, outcome, costUsd: result?.costUsd, durationMs: result?.durationMs },
    'run ended',
  );
}

async function setStatus(
  context: RunLaunchContext,
  change: { id: string; host: string; runId: string; status: IdeaStatus },
  history: IdeaHistory,
): Promise<void> {
  const { id, runId, status } = change;
  const store = await context.options.hosts.store(change.host);
  const before = (await store.get(id)).status;
  await store.update(id, (current) => ({ ...current, status }));
  if (before !== status) history.append({ type: 'idea:status', ideaId: id, runId, status });
}
