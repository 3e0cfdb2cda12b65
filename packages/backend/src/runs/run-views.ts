import { randomUUID } from 'node:crypto';
import type { RelayEvent, RunView } from '@catalyst/protocol';
import type { IdeaHistory } from '../ideas/event-history.ts';

/**
 * Runs as the REST API shows them (protocol runs.ts), read from an idea's history: a run is its `run:started`,
 * ended by its first `run:ended` (a Catalyst killed before it wrote an event may have shown one twice).
 */

/** The runs the events tell of, in the order they started; a `run:ended` without its start is left out. */
export function runViewsOf(events: readonly RelayEvent[]): RunView[] {
  const views = new Map<string, RunView>();
  for (const event of events) {
    if (event.runId === undefined) continue;
    if (event.type === 'run:started' && !views.has(event.runId)) {
      views.set(event.runId, {
        id: event.runId,
        ideaId: event.ideaId,
        mode: event.mode,
        message: event.message,
        state: 'running',
        startedAt: event.ts,
      });
    } else if (event.type === 'run:ended') {
      const view = views.get(event.runId);
      if (view === undefined || view.state !== 'running') continue;
      view.state = event.outcome;
      view.endedAt = event.ts;
      if (event.result !== undefined) view.result = event.result;
      if (event.error !== undefined) view.error = event.error;
    }
  }
  return [...views.values()];
}

/** The most of the history one search reads into memory. */
export const READ_BYTES = 16 * 1024 * 1024;
/** How far back a search reads (runs older than this many bytes of history are not found by id). */
export const SCAN_BYTES = 64 * 1024 * 1024;

function isStartOrEnd(event: RelayEvent): boolean {
  return event.type === 'run:started' || event.type === 'run:ended';
}

/** One run of the history, read backwards until its start; undefined when the history has none of that id. */
export async function readRunView(history: IdeaHistory, runId: string): Promise<RunView | undefined> {
  const { events } = await history.latest({
    maxEvents: 16,
    maxBytes: READ_BYTES,
    maxScanBytes: SCAN_BYTES,
    select: (event) => event.runId === runId && isStartOrEnd(event),
    isOldest: (event) => event.type === 'run:started',
  });
  return runViewsOf(events)[0];
}

/** The history's newest `limit` runs, newest first. */
export async function readRunViews(history: IdeaHistory, limit: number): Promise<RunView[]> {
  let starts = 0;
  const { events } = await history.latest({
    maxEvents: limit * 3,
    maxBytes: READ_BYTES,
    maxScanBytes: SCAN_BYTES,
    select: isStartOrEnd,
    isOldest: (event) => event.type === 'run:started' && ++starts >= limit,
  });
  return runViewsOf(events).reverse().slice(0, limit);
}

/** A new id that names its idea (protocol idea.ts, ideaNamingIdPattern): `run` for a run, `ap` an autopilot. */
export function newIdeaNamingId(prefix: 'run' | 'ap', ideaId: string): string {
  return `${prefix}-${ideaId.slice('idea-'.length)}-${randomUUID()}`;
}

/** Resolves once `promise` settles or `ms` pass, whichever is first; never rejects. */
export function settledWithin(promise: Promise<unknown>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    void promise
      .catch(() => undefined)
      .finally(() => {
        clearTimeout(timer);
        resolve();
      });
  });
}
