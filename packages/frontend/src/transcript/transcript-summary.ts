import type { IdeaStatus, RelayEvent, RunMode } from '@catalyst/protocol';
import { endedRunIdsOf } from './ended-runs.ts';
import type { TranscriptState } from './transcript-state.ts';

/** What the idea page's header and composer read from the transcript. */
export interface TranscriptSummary {
  /** A run:started with no run:ended yet. */
  activeRun?: { runId: string; mode: RunMode; startedSeq: number };
  /** A build has started in this idea (its first Build needs no confirmation any more). */
  hasBuilt: boolean;
  sessionId?: string;
  model?: string;
  /** The latest run's working directory on the host: the idea's project folder. */
  projectRoot?: string;
  slashCommands: readonly string[];
  /** The latest idea:status. */
  status?: IdeaStatus;
  /** Questions neither answered nor closed, of runs still going; oldest first. */
  pendingQuestionIds: readonly string[];
  pendingPermissionIds: readonly string[];
}

const cache = new WeakMap<readonly RelayEvent[], TranscriptSummary>();

export function summarize(state: TranscriptState): TranscriptSummary {
  let summary = cache.get(state.events);
  if (summary === undefined) {
    summary = summarizeEvents(state.events);
    cache.set(state.events, summary);
  }
  return summary;
}

function summarizeEvents(events: readonly RelayEvent[]): TranscriptSummary {
  const ended = endedRunIdsOf(events);
  const summary: TranscriptSummary = {
    hasBuilt: false,
    slashCommands: [],
    pendingQuestionIds: [],
    pendingPermissionIds: [],
  };
  for (const event of events) {
    if (event.type === 'run:started') {
      if (event.mode === 'build') summary.hasBuilt = true;
      if (event.runId !== undefined && !ended.has(event.runId))
        summary.activeRun = { runId: event.runId, mode: event.mode, startedSeq: event.seq };
    } else if (event.type === 'claude:system') {
      summary.sessionId = event.sessionId;
      summary.model = event.model;
      summary.projectRoot = event.cwd;
      summary.slashCommands = event.slashCommands;
    } else if (event.type === 'claude:result' && summary.sessionId === undefined && event.result.sessionId) {
      summary.sessionId = event.result.sessionId;
    } else if (event.type === 'idea:status') {
      summary.status = event.status;
    }
  }
  return { ...summary, ...findPending(events, ended) };
}

/** A prompt of an ended run cannot be answered any more, even if its closing event never came. */
function findPending(
  events: readonly RelayEvent[],
  ended: ReadonlySet<string>,
): Pick<TranscriptSummary, 'pendingQuestionIds' | 'pendingPermissionIds'> {
  const questions = new Set<string>();
  const permissions = new Set<string>();
  for (const event of events) {
    const isLive = event.runId === undefined || !ended.has(event.runId);
    if (event.type === 'claude:question') {
      if (isLive) questions.add(event.questionId);
    } else if (event.type === 'claude:question_answered' || event.type === 'claude:question_closed') {
      questions.delete(event.questionId);
    } else if (event.type === 'claude:permission_request') {
      if (isLive) permissions.add(event.requestId);
    } else if (event.type === 'claude:permission_closed') {
      permissions.delete(event.requestId);
    }
  }
  return { pendingQuestionIds: [...questions], pendingPermissionIds: [...permissions] };
}
