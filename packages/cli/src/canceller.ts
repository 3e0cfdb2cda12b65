import { isCliError } from './cli-error.ts';
import type { Terminal } from './terminal.ts';

/**
 * What Ctrl-C (or SIGTERM) does to a run or an autopilot this client started: ask Catalyst to cancel it (a POST),
 * then let the command wait for the outcome its events or its long poll report; with --detach, leave it going and
 * let the command stop at once (`gaveUp`). A Ctrl-C that comes before the server named
 * what it started is kept and acted on once the id is known. Catalyst stops a run within seconds (interrupt, then
 * SIGINT, then the stop ladder: docs/protocol.md, Cancel); if no outcome comes by `giveUpMs`, `gaveUp` resolves
 * and the command exits anyway.
 */
export interface Canceller {
  /** The Ctrl-C handler. */
  request: () => void;
  attach: (id: string) => void;
  readonly gaveUp: Promise<'gave_up'>;
  dispose: () => void;
}

export interface CancellerOptions {
  what: 'run' | 'autopilot';
  terminal: Terminal;
  cancel: (id: string) => Promise<unknown>;
  giveUpMs?: number;
  /** --detach: an interrupt leaves it going on the server (said on stderr), and the command stops at once. */
  isDetached?: boolean;
}

const DEFAULT_GIVE_UP_MS = 30_000;

export function createCanceller(options: CancellerOptions): Canceller {
  const { what, terminal } = options;
  let id: string | undefined;
  let isRequested = false;
  let timer: NodeJS.Timeout | undefined;
  let giveUp: (value: 'gave_up') => void = () => undefined;
  const gaveUp = new Promise<'gave_up'>((resolve) => {
    giveUp = resolve;
  });
  const sayLeft = (target: string): void => {
    terminal.err(
      terminal.paint.yellow(
        `\nLeft the ${what} ${target} going on Catalyst (--detach); the web app shows it.\n`,
      ),
    );
  };
  const send = (target: string): void => {
    options.cancel(target).catch((error: unknown) => {
      // NO_RUN: it ended on its own meanwhile, and its outcome is on its way.
      if (isCliError(error) && error.code === 'NO_RUN') return;
      terminal.err(
        `Could not cancel the ${what}: ${error instanceof Error ? error.message : String(error)}\n`,
      );
    });
  };
  return {
    request: () => {
      isRequested = true;
      if (options.isDetached === true) {
        if (id !== undefined) sayLeft(id);
        giveUp('gave_up');
        return;
      }
      terminal.err(terminal.paint.yellow(`\nCancelling the ${what}… (Ctrl-C again to stop waiting)\n`));
      if (id !== undefined) send(id);
      timer = setTimeout(() => {
        terminal.err(
          `Catalyst has not confirmed the cancel yet; the ${what} ${id ?? ''} may still be stopping.\n`,
        );
        giveUp('gave_up');
      }, options.giveUpMs ?? DEFAULT_GIVE_UP_MS);
    },
    attach: (started) => {
      id = started;
      if (!isRequested) return;
      if (options.isDetached === true) sayLeft(started);
      else send(started);
    },
    gaveUp,
    dispose: () => {
      clearTimeout(timer);
    },
  };
}
