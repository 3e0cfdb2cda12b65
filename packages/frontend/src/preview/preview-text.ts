import {
  PREVIEW_COMMAND_MAX,
  PreviewCommandSchema,
  PreviewPortSchema,
  type ListeningPort,
  type PreviewState,
  type PreviewView,
} from '@catalyst/protocol';

/** What the Preview view (issue 14) says, and how often it looks again: pure, so tested on its own. */

/** How often the view is asked for again: often while a crash or the start could show up any moment. */
export const FAST_POLL_MS = 2_000;
export const SLOW_POLL_MS = 10_000;
/** The listening ports are asked for less often: each look runs a command on the host. */
export const PORTS_POLL_MS = 5_000;

export function pollDelayOf(state: PreviewState | undefined): number {
  return state === 'starting' || state === 'running' ? FAST_POLL_MS : SLOW_POLL_MS;
}

/** "exit code 1", "signal SIGTERM"; undefined when neither is known. */
export function describeExit(exit: PreviewView['exit']): string | undefined {
  if (exit === undefined) return undefined;
  if (exit.code !== null) return `exit code ${exit.code}`;
  if (exit.signal !== null) return `signal ${exit.signal}`;
  return undefined;
}

/** The state line: "Stopped", "Starting…", "Running at http://127.0.0.1:41234", "Crashed (exit code 1)". */
export function describePreviewState(view: PreviewView): string {
  switch (view.state) {
    case 'stopped':
      return 'Stopped';
    case 'starting':
      return 'Starting…';
    case 'running':
      return view.origin === undefined ? 'Running' : `Running at ${view.origin}`;
    case 'crashed': {
      const exit = describeExit(view.exit);
      return exit === undefined ? 'Crashed' : `Crashed (${exit})`;
    }
  }
}

/** What happened at `since`, to go before its time: "Started 2 minutes ago". */
export function sinceVerbOf(state: PreviewState): string {
  switch (state) {
    case 'stopped':
      return 'Stopped';
    case 'starting':
    case 'running':
      return 'Started';
    case 'crashed':
      return 'Crashed';
  }
}

export function describePortSource(source: ListeningPort['source']): string {
  switch (source) {
    case 'run':
      return 'from the running build';
    case 'preview':
      return 'the preview';
  }
}

export interface PreviewSettingsBody {
  previewCommand: string;
  previewPort: number;
}

export interface PreviewFormProblems {
  command?: string;
  port?: string;
}

export type ParsedPreviewForm =
  { ok: true; body: PreviewSettingsBody } | { ok: false; problems: PreviewFormProblems };

/** The command and port as typed, checked as the server checks them, each problem in a sentence. */
export function parsePreviewForm(command: string, port: string): ParsedPreviewForm {
  const problems: PreviewFormProblems = {};
  const parsedCommand = PreviewCommandSchema.safeParse(command);
  if (command.trim() === '')
    problems.command = 'Enter the command that starts the preview, e.g. npm run dev.';
  else if (!parsedCommand.success)
    problems.command = `The command must be one line of at most ${PREVIEW_COMMAND_MAX} characters.`;
  const parsedPort = PreviewPortSchema.safeParse(port.trim() === '' ? Number.NaN : Number(port));
  if (!parsedPort.success) problems.port = 'The port must be a whole number from 1 to 65535.';
  if (!parsedCommand.success || !parsedPort.success) return { ok: false, problems };
  return { ok: true, body: { previewCommand: parsedCommand.data, previewPort: parsedPort.data } };
}
