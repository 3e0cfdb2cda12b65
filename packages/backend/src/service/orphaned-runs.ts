import type { Logger } from 'pino';
import { orphanedRunOf } from '../core/orphaned-run.ts';
import type { IdeaHistory } from '../ideas/event-history.ts';
import type { IdeaStore } from '../ideas/idea-store.ts';
import { statusAfterRun } from './idea-status.ts';

/** How far back a newly opened history is searched for a run that never ended (its newest events suffice). */
const SCAN_EVENTS = 200;

export const ORPHANED_RUN_MESSAGE =
  'Catalyst stopped while this run was going (it was killed or the machine went down), so the run has no result. ' +
  'The VM stopped its claude when Catalyst stopped answering.';

/**
 * Ends, in the history and in meta.json, a run an earlier Catalyst process left without an ending (core/orphaned-run.ts),
 * so a browser never waits for it and the idea is not left `building` for ever.
 */
export async function closeOrphanedRun(
  id: string,
  history: IdeaHistory,
  store: IdeaStore,
  logger: Logger,
): Promise<void> {
  // From the newest event, not lastSeq: after a crash lastSeq sits above it by the unused seq reservation.
  const recent = await history.since(Math.max(0, history.newestEventSeq - SCAN_EVENTS));
  const orphan = orphanedRunOf(recent);
  if (orphan === undefined) return;
  const { runId } = orphan;
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
    error: { code: 'CONNECTION_LOST', message: ORPHANED_RUN_MESSAGE },
  });
  logger.warn({ ideaId: id, runId }, 'run ended while Catalyst was down');
}
