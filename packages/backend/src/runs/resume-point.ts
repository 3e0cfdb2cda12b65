import type { RelayEvent, RelayEventDraft } from '@catalyst/protocol';

/**
 * Where a restarted Catalyst takes up a run an earlier one left going (issue 11, docs/architecture.md "Exactly
 * once"). Every event a run emits records its `origin`: the stdout line of the turn it was made of, and which of
 * that line's events it is (or how far stderr had been read). The run's session on the host still holds all of its
 * output, so the new driver reads the turn again from its start through a fresh lifecycle (which so rebuilds its
 * state: session id, prompts, the result) and emits only what lies past the newest recorded origin.
 */

export interface LineCursor {
  line: number;
  part: number;
}

export interface ResumePoint {
  /** The run's session on the host, and where its turn began in its stdout and stderr (from `run:started`). */
  session: { id: string; stdout: number; stderr: number };
  /** When the run began (its `run:started`, epoch ms): its maximum duration counts from here, not from the take-up. */
  startedAtMs: number;
  /** The newest stdout event the history holds. */
  cursor: LineCursor;
  /** Bytes of stderr already read (its newest event); stderr is read on from there, not again. */
  stderr: number;
  /** Prompts the history shows settled (answered, dismissed, closed): not asked again. */
  settledPrompts: ReadonlySet<string>;
  /** The event the history holds for a draft being read again (the prompt's own event, so its `seq` is right). */
  recorded: (draft: RelayEventDraft) => RelayEvent;
}

export function isAtOrBefore(at: LineCursor, cursor: LineCursor): boolean {
  return at.line < cursor.line || (at.line === cursor.line && at.part <= cursor.part);
}

/** An event that is not written anywhere (seq 0): what a caller gets for a draft that is not recorded. */
export function unrecorded(draft: RelayEventDraft): RelayEvent {
  return { ...draft, seq: 0, ts: new Date().toISOString() };
}

/**
 * The resume point of run `runId` from its events (oldest first, all of the run's), or why it has none: a run
 * from before sessions recorded themselves, or one whose session was replaced (the lost-session restart reads a
 * second session, which a resume cannot follow).
 */
export function resumePointOf(
  events: readonly RelayEvent[],
  runId: string,
): { point: ResumePoint } | { reason: string } {
  const own = events.filter((event) => event.runId === runId);
  const started = own.find((event) => event.type === 'run:started');
  if (started?.type !== 'run:started' || started.session === undefined) {
    return { reason: 'the run did not record its session on the host' };
  }
  if (own.some((event) => event.type === 'run:session_replaced')) {
    return { reason: 'the run went on in a second session, which Catalyst does not take up' };
  }
  let cursor: LineCursor = { line: 0, part: 0 };
  let stderr = started.session.stderr;
  const settled = new Set<string>();
  const prompts = new Map<string, RelayEvent>();
  for (const event of own) {
    const source = event.origin;
    if (source !== undefined && 'line' in source && !isAtOrBefore(source, cursor)) cursor = source;
    if (source !== undefined && 'stderr' in source) stderr = Math.max(stderr, source.stderr);
    if (event.type === 'claude:question') prompts.set(event.questionId, event);
    if (event.type === 'claude:permission_request') prompts.set(event.requestId, event);
    if (event.type === 'claude:question_closed') settled.add(event.questionId);
    if (event.type === 'claude:permission_closed') settled.add(event.requestId);
  }
  return {
    point: {
      session: started.session,
      startedAtMs: Date.parse(started.ts),
      cursor,
      stderr,
      settledPrompts: settled,
      recorded: (draft) => {
        const id =
          draft.type === 'claude:question'
            ? draft.questionId
            : draft.type === 'claude:permission_request'
              ? draft.requestId
              : undefined;
        return (id === undefined ? undefined : prompts.get(id)) ?? unrecorded(draft);
      },
    },
  };
}
