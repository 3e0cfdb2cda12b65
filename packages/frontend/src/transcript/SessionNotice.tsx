import { formatCost } from '../base/format.ts';
import type { NoticeEvent } from './transcript-items.ts';

export const SESSION_REPLACED_TEXT =
  "Claude's earlier session for this idea was no longer on the VM; a new one started with a recap.";

export function detachedText(host: string): string {
  return `Connection to ${host} lost: Claude keeps working; reconnecting…`;
}

export function attachedText(host: string): string {
  return `Reconnected to ${host}; the output goes on from where it was.`;
}

/**
 * A line about the run itself rather than Claude's output: a new Claude session started with a recap (the CLI no
 * longer had the idea's conversation), or the connection to the host dropped and came back while Claude went on
 * in its session there, so the person knows why the output paused and that nothing was lost.
 */
export function SessionNotice({ event }: { event: NoticeEvent }) {
  switch (event.type) {
    case 'run:session_replaced':
      return (
        <div className="t-notice" role="note" title={`Earlier session: ${event.previousSessionId}`}>
          {SESSION_REPLACED_TEXT}
        </div>
      );
    case 'run:detached':
      return (
        <div className="t-notice" role="note" title={event.reason}>
          {detachedText(event.host)}
        </div>
      );
    case 'run:attached':
      return (
        <div className="t-notice" role="note">
          {attachedText(event.host)}
        </div>
      );
    case 'autopilot:started':
    case 'autopilot:step_started':
    case 'autopilot:step_ended':
    case 'autopilot:ended':
    case 'autopilot:paused':
    case 'autopilot:resumed':
      return (
        <div className="t-notice" role="note">
          {autopilotText(event)}
        </div>
      );
    case 'checkpoint:restored':
      return (
        <div className="t-notice" role="note" title={event.commit}>
          {restoredText(event)}
        </div>
      );
    case 'checkpoint:unavailable':
      return (
        <div className="t-notice" role="note">
          {event.reason}
        </div>
      );
  }
}

/** A restore of the project (issue 13): what it changed, and that it can be undone. */
export function restoredText(event: Extract<NoticeEvent, { type: 'checkpoint:restored' }>): string {
  const to = event.restoredTo === undefined ? '' : ` to checkpoint ${event.restoredTo.slice(0, 7)}`;
  return `Project restored${to}: ${changeCountText(event)}. The restore is a checkpoint too, so it can be undone.`;
}

/** "3 files changed, +40 −2". */
export function changeCountText(change: {
  filesChanged: number;
  insertions: number;
  deletions: number;
}): string {
  const files = `${String(change.filesChanged)} file${change.filesChanged === 1 ? '' : 's'} changed`;
  return `${files}, +${String(change.insertions)} −${String(change.deletions)}`;
}

/** An autopilot's progress, one line per event (issue 12). */
export function autopilotText(event: Extract<NoticeEvent, { type: `autopilot:${string}` }>): string {
  switch (event.type) {
    case 'autopilot:started':
      return `Autopilot started: ${String(event.steps.length)} step${event.steps.length === 1 ? '' : 's'}, questions answered ${POLICY_WORDS[event.questionPolicy]}.`;
    case 'autopilot:step_started':
      return `Autopilot step ${String(event.index + 1)}.`;
    case 'autopilot:step_ended':
      return `Autopilot step ${String(event.index + 1)} ${event.state}${event.error === undefined ? '' : `: ${event.error.message}`}.`;
    case 'autopilot:ended':
      return `Autopilot ${event.state} (${formatCost(event.costUsd)})${event.error === undefined ? '' : `: ${event.error.message}`}.`;
    case 'autopilot:paused':
      return `Paused: ${event.message}`;
    case 'autopilot:resumed':
      return event.oneMoreStep === true ? 'Resumed for one more step.' : 'Resumed.';
  }
}

const POLICY_WORDS = {
  auto: 'by the model',
  human: 'by you',
  human_then_auto: 'by you, then by the model',
} as const;
