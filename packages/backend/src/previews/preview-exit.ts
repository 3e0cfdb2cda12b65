import type { RunOutcome } from '../host/host.ts';

/** How a preview's dev server ended: its exit, and a note for its log when it did not simply exit. */
export function describeExit(outcome: RunOutcome): {
  exit: { code: number | null; signal: string | null };
  note?: string;
} {
  switch (outcome.kind) {
    case 'exited':
      return { exit: { code: outcome.code, signal: outcome.signal } };
    case 'connection_lost':
      return {
        exit: { code: null, signal: null },
        note: `the connection to the host was lost (${outcome.message})`,
      };
    case 'start_failed':
      return { exit: { code: null, signal: null }, note: `could not start: ${outcome.message}` };
    case 'lease_lost':
      return {
        exit: { code: null, signal: null },
        note: 'Catalyst lost touch with the host, which stopped it',
      };
    case 'max_runtime':
      return { exit: { code: null, signal: null }, note: 'it ran for its longest allowed time' };
    case 'disk_full':
      return { exit: { code: null, signal: null }, note: 'the host’s disk is full' };
    case 'cancelled':
      return { exit: { code: null, signal: null }, note: 'it was stopped' };
    case 'vanished':
      return { exit: { code: null, signal: null }, note: 'it ended without a word (did the VM restart?)' };
  }
}
