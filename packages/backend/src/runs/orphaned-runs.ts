import type { Logger } from 'pino';
import type { RelayEvent, RunMode } from '@catalyst/protocol';
import { orphanedRunOf } from './core/orphaned-run.ts';
import type { IdeaHistory } from '../ideas/event-history.ts';
import type { IdeaStore } from '../ideas/idea-store.ts';
import { resumePointOf, type ResumePoint } from './resume-point.ts';
import { statusAfterRun } from '../ideas/idea-status.ts';

/** How far back a newly opened history is searched for a run that never ended (its newest events suffice). */
const SCAN_EVENTS = 200;
/** What a resume reads of a run's history (its start, its prompts), newest first: far more than any run has. */
const RESUME_READ = { maxEvents: 100_000, maxBytes: 64 * 1024 * 1024 };

export const ORPHANED_RUN_MESSAGE =
  'Catalyst stopped while this run was going (it was killed or the machine went down), so the run has no result. ' +
  'The VM stopped its claude when Catalyst stopped answering.';

export const SESSION_GONE_MESSAGE =
  'Catalyst stopped while this run was going, and when it came back the run’s session was gone from the VM ' +
  '(did the VM restart?), so the run has no result. Everything it did before is kept above.';

export const RUN_REPLACED_MESSAGE =
  'Catalyst stopped while this run was going and could not take it up again when it came back; a new message was ' +
  'sent, so the run was stopped on the VM. Everything it did before is kept above.';

/** A run an earlier Catalyst left going that can be taken up from its session on the host. */
export interface ResumableRun {
  runId: string;
  mode: RunMode;
  message: string;
  point: ResumePoint;
}

/**
 * Takes up the run (its session is on the host: resumed) or answers why not, in words for the person (undefined:
 * say the usual). Must not open the idea's history again (it is being opened).
 */
export type TakeUp = (run: ResumableRun) => Promise<{ isTakenUp: true } | { isTakenUp: false; why?: string }>;

/**
 * A run an earlier Catalyst process left without an ending (runs/core/orphaned-run.ts): taken up again when its
 * session is still on the host (the run goes on, nothing is written here), otherwise ended, in the history and in
 * meta.json, so a browser never waits for it and the idea is not left `building` for ever.
 */
export async function settleOrphanedRun(
  id: string,
  history: IdeaHistory,
  store: IdeaStore,
  logger: Logger,
  takeUp: TakeUp,
): Promise<void> {
  // From the newest event, not lastSeq: after a crash lastSeq sits above it by the unused seq reservation.
  const recent = await history.since(Math.max(0, history.newestEventSeq - SCAN_EVENTS));
  const orphan = orphanedRunOf(recent);
  if (orphan === undefined) return;
  const { runId } = orphan;
  let why = ORPHANED_RUN_MESSAGE;
  const { events } = await history.latest({
    ...RESUME_READ,
    select: forResume(runId),
    isOldest: (event) => event.type === 'run:started',
  });
  const plan = resumePointOf(events, runId);
  const started = events.find((event) => event.type === 'run:started');
  if ('point' in plan && started?.type === 'run:started') {
    const answer = await takeUp({ runId, mode: started.mode, message: started.message, point: plan.point });
    if (answer.isTakenUp) {
      logger.info({ ideaId: id, runId }, 'took up a run an earlier Catalyst left going');
      return;
    }
    why = answer.why ?? why;
  }
  const meta = await store.get(id);
  // Without its run:started at hand, the status says whether it was a build.
  const mode = orphan.mode ?? (meta.status === 'building' ? 'build' : 'chat');
  const status = statusAfterRun(meta.status, mode, 'connection_lost');
  if (status !== meta.status) {
    await store.update(id, (current) => ({ ...current, status }));
    history.append({ type: 'idea:status', ideaId: id, runId, status });
  }
  history.append({
    type: 'run:ended',
    ideaId: id,
    runId,
    outcome: 'connection_lost',
    error: { code: 'CONNECTION_LOST', message: why },
  });
  logger.warn({ ideaId: id, runId }, 'run ended while Catalyst was down');
}

/**
 * The events a resume point is made of, read newest first: the run's start, its prompts, and of the events its
 * output made only the newest of each kind (where the output was).
 */
function forResume(runId: string): (event: RelayEvent) => boolean {
  const seen = { line: false, stderr: false };
  return (event) => {
    if (event.runId !== runId) return false;
    if (PROMPT_AND_START.has(event.type)) return true;
    const kind = event.origin === undefined ? undefined : 'line' in event.origin ? 'line' : 'stderr';
    if (kind === undefined || seen[kind]) return false;
    seen[kind] = true;
    return true;
  };
}

const PROMPT_AND_START: ReadonlySet<RelayEvent['type']> = new Set([
  'run:started',
  'run:session_replaced',
  'claude:question',
  'claude:question_closed',
  'claude:permission_request',
  'claude:permission_closed',
] as const);
