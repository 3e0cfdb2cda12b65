import type { RelayEvent, TextDeltaFrame, TextResetFrame } from '@catalyst/protocol';
import { endedRunIdsOf } from './ended-runs.ts';

/**
 * The transcript of one idea as the browser holds it: the relayed events (each once, in `seq` order, whatever
 * order they arrived in: a replay after a reconnect overlaps the live stream) and the partial text of the run in
 * progress. Pure and immutable: every change returns a new state, and a frame that changes nothing returns the
 * same state, so React can skip the render.
 */

export type TranscriptFrame = RelayEvent | TextDeltaFrame | TextResetFrame;

/** Text the model is writing: the deltas of one content block of one message, joined. Live only, no `seq`. */
export interface TextDraft {
  readonly runId: string;
  readonly messageId: string;
  readonly index: number;
  readonly parentToolUseId: string | null;
  readonly text: string;
}

export interface TranscriptState {
  /** Unique by `seq`, ascending. */
  readonly events: readonly RelayEvent[];
  /**
   * The highest `seq` received (0 when none): what a reconnecting client sends as `sinceSeq`, and what it compares
   * with the `subscribed` frame's `lastSeq` to know it caught up. An event shown once already under another seq
   * (same run and origin) counts though it is not kept again.
   */
  readonly lastSeq: number;
  /** In the order their first delta arrived. */
  readonly drafts: readonly TextDraft[];
}

export const emptyTranscript: TranscriptState = { events: [], lastSeq: 0, drafts: [] };

/**
 * The live connection dropped: deltas and resets sent meanwhile are gone for good, so partial text could only be
 * wrong (a gap, or an abandoned attempt). The complete `claude:text` arrives with the replay.
 */
export function withoutDrafts(state: TranscriptState): TranscriptState {
  return state.drafts.length === 0 ? state : { ...state, drafts: [] };
}

export function applyFrame(state: TranscriptState, frame: TranscriptFrame): TranscriptState {
  return applyFrames(state, [frame]);
}

/**
 * Applies frames in order with one copy of the event list however many there are: the new events are sorted and
 * merged into the old ones in a single pass. Draft rules (ws-frames.ts): the complete `claude:text` of a message
 * replaces its drafts; `claude:text_reset` and `run:ended` drop the drafts of their run; deltas of an ended run
 * are ignored.
 */
export function applyFrames(state: TranscriptState, frames: readonly TranscriptFrame[]): TranscriptState {
  let drafts = state.drafts;
  const incoming: RelayEvent[] = [];
  const incomingSeqs = new Set<number>();
  const incomingOrigins = new Set<string>();
  const endedHere = new Set<string>();
  let lastSeq = state.lastSeq;
  for (const frame of frames) {
    if (frame.type === 'claude:text_delta') {
      const isEnded = endedHere.has(frame.runId) || endedRunIdsOf(state.events).has(frame.runId);
      if (!isEnded) drafts = appendDelta(drafts, frame);
    } else if (frame.type === 'claude:text_reset') {
      drafts = dropDrafts(drafts, (draft) => draft.runId === frame.runId);
    } else if (!incomingSeqs.has(frame.seq) && !hasSeq(state.events, frame.seq)) {
      lastSeq = Math.max(lastSeq, frame.seq);
      const origin = originKey(frame);
      if (origin !== undefined && (incomingOrigins.has(origin) || hasOrigin(state.events, frame))) continue;
      if (origin !== undefined) incomingOrigins.add(origin);
      incoming.push(frame);
      incomingSeqs.add(frame.seq);
      drafts = dropDraftsSettledBy(drafts, frame);
      if (frame.type === 'run:ended' && frame.runId !== undefined) endedHere.add(frame.runId);
    }
  }
  if (incoming.length === 0 && drafts === state.drafts && lastSeq === state.lastSeq) return state;
  const events = incoming.length === 0 ? state.events : mergeBySeq(state.events, incoming);
  return { events, lastSeq, drafts };
}

/**
 * An event made of Claude's output names where in it it came from (`origin`). A Catalyst killed before it wrote
 * what it had already shown makes those events again after its restart, with new seqs (docs/architecture.md,
 * "Exactly once"): the same run and origin is the same event, shown once.
 */
function originKey(event: RelayEvent): string | undefined {
  const origin = event.origin;
  if (origin === undefined || !('line' in origin) || event.runId === undefined) return undefined;
  return `${event.runId} ${String(origin.line)}.${String(origin.part)}`;
}

/**
 * Whether `events` holds an event of the same run from the same place. A run's events come in the order of its
 * output, so the search goes back from the newest and stops at the first of the run from an earlier place.
 */
function hasOrigin(events: readonly RelayEvent[], event: RelayEvent): boolean {
  const origin = event.origin;
  if (origin === undefined || !('line' in origin)) return false;
  for (let index = events.length - 1; index >= 0; index -= 1) {
    const held = events[index];
    const at = held?.origin;
    if (held?.runId !== event.runId || at === undefined || !('line' in at)) continue;
    if (at.line === origin.line && at.part === origin.part) return true;
    if (at.line < origin.line || (at.line === origin.line && at.part < origin.part)) return false;
  }
  return false;
}

function appendDelta(drafts: readonly TextDraft[], delta: TextDeltaFrame): readonly TextDraft[] {
  if (delta.text === '') return drafts;
  const at = drafts.findIndex(
    (draft) =>
      draft.runId === delta.runId && draft.messageId === delta.messageId && draft.index === delta.index,
  );
  const existing = drafts[at];
  if (existing === undefined) {
    const { runId, messageId, index, parentToolUseId, text } = delta;
    return [...drafts, { runId, messageId, index, parentToolUseId, text }];
  }
  const copy = drafts.slice();
  copy[at] = { ...existing, text: existing.text + delta.text };
  return copy;
}

function dropDraftsSettledBy(drafts: readonly TextDraft[], event: RelayEvent): readonly TextDraft[] {
  if (drafts.length === 0) return drafts;
  if (event.type === 'claude:text') return dropDrafts(drafts, (draft) => draft.messageId === event.messageId);
  if (event.type === 'run:ended') return dropDrafts(drafts, (draft) => draft.runId === event.runId);
  return drafts;
}

/** The same array when nothing matches, so an unchanged state stays the same object. */
function dropDrafts(
  drafts: readonly TextDraft[],
  isDropped: (draft: TextDraft) => boolean,
): readonly TextDraft[] {
  return drafts.some(isDropped) ? drafts.filter((draft) => !isDropped(draft)) : drafts;
}

/** The first index whose seq is >= `seq` (binary search: the list is sorted). */
function lowerBound(events: readonly RelayEvent[], seq: number): number {
  let low = 0;
  let high = events.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    const event = events[mid];
    if (event !== undefined && event.seq < seq) low = mid + 1;
    else high = mid;
  }
  return low;
}

function hasSeq(events: readonly RelayEvent[], seq: number): boolean {
  return events[lowerBound(events, seq)]?.seq === seq;
}

/** Both lists are duplicate-free and `incoming` holds no seq of `events`; the common case appends. */
function mergeBySeq(events: readonly RelayEvent[], incoming: RelayEvent[]): RelayEvent[] {
  incoming.sort((a, b) => a.seq - b.seq);
  const first = incoming[0];
  const last = events[events.length - 1];
  if (first === undefined || last === undefined || last.seq < first.seq) return [...events, ...incoming];
  let i = lowerBound(events, first.seq);
  const merged = events.slice(0, i);
  for (const event of incoming) {
    for (let next = events[i]; next !== undefined && next.seq < event.seq; next = events[++i])
      merged.push(next);
    merged.push(event);
  }
  for (let next = events[i]; next !== undefined; next = events[++i]) merged.push(next);
  return merged;
}
