import type { RelayEvent } from '@catalyst/protocol';

// Keyed by the event list itself: a state's list never changes, so a delta (which keeps the list) costs a lookup.
const cache = new WeakMap<readonly RelayEvent[], ReadonlySet<string>>();

/** The runs that have a `run:ended` among `events`. */
export function endedRunIdsOf(events: readonly RelayEvent[]): ReadonlySet<string> {
  let ended = cache.get(events);
  if (ended === undefined) {
    const ids = new Set<string>();
    for (const event of events)
      if (event.type === 'run:ended' && event.runId !== undefined) ids.add(event.runId);
    ended = ids;
    cache.set(events, ended);
  }
  return ended;
}
