import { CatalystError } from './catalyst-error.ts';

/** For tests: runs `run` and returns the CatalystError it threw; anything else (or nothing thrown) fails. */
export function captureCatalystError(run: () => unknown): CatalystError {
  try {
    run();
  } catch (error) {
    if (error instanceof CatalystError) return error;
    throw error;
  }
  throw new Error('expected a CatalystError, nothing was thrown');
}
