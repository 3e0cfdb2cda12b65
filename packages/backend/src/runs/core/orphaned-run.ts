import type { RelayEvent, RunMode } from '@catalyst/protocol';

/**
 * A run a previous Catalyst process started and never ended: it was killed (SIGKILL, a crash, the machine went
 * down) before it could write `run:ended`. On the VM the run wrapper has stopped that claude by then (its lease
 * lapsed); the history only needs its ending. Every event of a run carries its `runId`, and `run:ended` is the
 * last one a run writes, so the newest event that has a run id tells: anything but `run:ended` is an orphan.
 *
 * `events` are the newest events of the history, oldest first. Called once, when a process first opens the
 * history, before any run of its own has written to it.
 */
export function orphanedRunOf(
  events: readonly RelayEvent[],
): { runId: string; mode: RunMode | undefined } | undefined {
  let last: RelayEvent | undefined;
  for (let index = events.length - 1; index >= 0 && last === undefined; index -= 1) {
    const event = events[index];
    if (event?.runId !== undefined) last = event;
  }
  if (last?.runId === undefined || last.type === 'run:ended') return undefined;
  const runId = last.runId;
  const started = events.find((event) => event.type === 'run:started' && event.runId === runId);
  return { runId, mode: started?.type === 'run:started' ? started.mode : undefined };
}
