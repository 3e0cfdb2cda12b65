import { ExitCode } from './exit-codes.ts';
import type { Terminal } from './terminal.ts';

/**
 * Ctrl-C, and SIGTERM alike (a supervisor's or a script's stop). While a command has something to stop on the
 * server (a run, an autopilot), its handler takes the first: it asks Catalyst to cancel and waits for the outcome
 * (or, with --detach, leaves it going). A second one, or one while nothing is started yet, exits 130 at once.
 */
export interface Interrupts {
  setHandler: (handler: (() => void) | undefined) => void;
  /** For a readline prompt, which takes Ctrl-C from the terminal itself (raw mode) instead of the signal. */
  trigger: () => void;
}

export function listenForInterrupts(terminal: Terminal, exit: (code: number) => void): Interrupts {
  let handler: (() => void) | undefined;
  let hasFired = false;
  const trigger = (): void => {
    if (handler === undefined || hasFired) {
      if (hasFired) terminal.err('\nStopped without waiting for Catalyst to confirm.\n');
      exit(ExitCode.cancelled);
      return;
    }
    hasFired = true;
    handler();
  };
  process.on('SIGINT', trigger);
  process.on('SIGTERM', trigger);
  return {
    setHandler: (next) => {
      handler = next;
    },
    trigger,
  };
}
