import type { RunEnding } from './core/run-ending.ts';
import type { ActiveRun } from './active-run.ts';

/**
 * A run's place in the service's map from before its launch finishes: a second start for the same idea is
 * refused (never a second claude), and a cancel or a shutdown during the launch reaches the run once it exists.
 * Its prompts appear once the run does (`adopt`).
 */
export type RunClaim = ActiveRun & { adopt(run: ActiveRun): void };

export function claimRun(runId: string, launching: Promise<ActiveRun>): RunClaim {
  let adopted: ActiveRun | undefined;
  const claim: { -readonly [K in keyof ActiveRun]: ActiveRun[K] } & { adopt(run: ActiveRun): void } = {
    runId,
    get sessionId() {
      return adopted?.sessionId;
    },
    ended: launching.then(
      (run) => run.ended,
      (): RunEnding => ({ outcome: 'failed' }),
    ),
    cancel: () =>
      void launching.then(
        (run) => {
          run.cancel();
        },
        () => undefined,
      ),
    detach: () =>
      void launching.then(
        (run) => {
          run.detach?.();
        },
        () => undefined,
      ),
    adopt: (run) => {
      adopted = run;
      if (run.prompts !== undefined) claim.prompts = run.prompts;
    },
  };
  return claim;
}

/** A place held in the service's map by something that is not a run: a start or a delete meanwhile is refused. */
function placeHolder(runId: string): ActiveRun {
  return { runId, ended: Promise.resolve({ outcome: 'cancelled' }), cancel: () => undefined };
}

/** Holds an idea's place while it is being deleted: a start or a delete meanwhile sees RUN_IN_PROGRESS. */
export const deletingClaim = placeHolder('deleting');

/** Holds an idea's place while its project is restored to a checkpoint (issue 13): a start meanwhile is refused. */
export const restoringClaim = placeHolder('restoring');
