import type { Output } from './event-render.ts';
import { createPaint, type Paint } from './paint.ts';

/** The process's streams, as the commands use them. */
export interface Terminal {
  readonly paint: Paint;
  /** Whether a person can answer at this terminal: questions are asked here only then. */
  readonly isInteractive: boolean;
  out: (text: string) => void;
  err: (text: string) => void;
  write: (outputs: readonly Output[]) => void;
}

export function createProcessTerminal(env: Readonly<Record<string, string | undefined>>): Terminal {
  const hasColor = process.stdout.isTTY && (env.NO_COLOR ?? '') === '' && env.TERM !== 'dumb';
  const out = (text: string): void => {
    process.stdout.write(text);
  };
  const err = (text: string): void => {
    process.stderr.write(text);
  };
  return {
    paint: createPaint(hasColor),
    isInteractive: process.stdin.isTTY && process.stdout.isTTY,
    out,
    err,
    write: (outputs) => {
      for (const output of outputs) (output.stream === 'out' ? out : err)(output.text);
    },
  };
}

/** The same terminal with everything on stderr: stdout is kept for the one JSON document `--json` prints. */
export function onlyStderr(terminal: Terminal): Terminal {
  return {
    ...terminal,
    out: terminal.err,
    write: (outputs) => {
      for (const output of outputs) terminal.err(output.text);
    },
  };
}

/** Resolves once everything written so far has been handed to the OS, so an exit right after loses nothing. */
export async function flushStreams(): Promise<void> {
  await Promise.all(
    [process.stdout, process.stderr].map(
      (stream) =>
        new Promise<void>((resolve) => {
          stream.write('', () => {
            resolve();
          });
        }),
    ),
  );
}
