import { MAX_RUN_WAIT_MS, type RunView } from '@catalyst/protocol';
import type { ApiClient } from '../api-client.ts';
import { isCliError } from '../cli-error.ts';
import { RECONNECT_LIMIT_MS } from '../idea-socket.ts';
import type { Command } from '../command.ts';
import type { CommandContext } from '../command-context.ts';
import { exitCodeOfRunState, type ExitCodeValue } from '../exit-codes.ts';
import { resolveIdea } from '../idea-ref.ts';
import { formatOutcomeLine } from '../outcome-line.ts';
import type { Terminal } from '../terminal.ts';
import { createRunCanceller, postRun } from './run-start.ts';

type RunCommand = Extract<Command, { kind: 'run' }>;

/**
 * `catalyst run <idea> --build "…" [--json]`: no WebSocket. POST /api/ideas/:id/runs, then the long poll
 * GET /api/runs/:runId?waitMs=60000 until the run is no longer running; the final run on stdout (RunView JSON
 * with --json, else Claude's last text), the outcome line on stderr. Ctrl-C cancels the run and waits for it.
 */
export async function runAndWait(context: CommandContext, command: RunCommand): Promise<ExitCodeValue> {
  const { api, terminal, interrupts } = context;
  const ideaId = await resolveIdea(api, command.idea);
  const polling = new AbortController();
  const canceller = createRunCanceller(context, command.detach);
  interrupts.setHandler(canceller.request);
  try {
    const run = await postRun(api, ideaId, command);
    canceller.attach(run.id);
    terminal.err(terminal.paint.dim(`Run ${run.id} started; waiting for it to end…\n`));
    const latest = { run };
    const ended = await Promise.race([waitForEnd(api, terminal, latest, polling.signal), canceller.gaveUp]);
    polling.abort();
    const final = ended === 'gave_up' ? latest.run : ended;
    printRun(terminal, final, command.json);
    return ended === 'gave_up' ? exitCodeOfRunState('cancelled') : exitCodeOfRunState(final.state);
  } finally {
    interrupts.setHandler(undefined);
    canceller.dispose();
  }
}

/**
 * Loops on the long poll; `latest` holds the newest view, for a client that stops waiting. A poll the connection
 * dropped under (Catalyst restarting, a network's blip) is asked again, with backoff, as the idea socket reconnects:
 * the run goes on in Catalyst meanwhile, and only RECONNECT_LIMIT_MS without an answer ends the wait.
 */
async function waitForEnd(
  api: ApiClient,
  terminal: Terminal,
  latest: { run: RunView },
  signal: AbortSignal,
): Promise<RunView> {
  let lostSince: number | undefined;
  while (latest.run.state === 'running') {
    const request = { params: { runId: latest.run.id }, query: { waitMs: MAX_RUN_WAIT_MS } };
    try {
      latest.run = (await api.call('getRun', request, signal)).run;
      if (lostSince !== undefined) terminal.err(terminal.paint.dim('Reconnected; still waiting…\n'));
      lostSince = undefined;
    } catch (error) {
      const isLost = isCliError(error) && (error.code === 'UNREACHABLE' || error.code === 'CONNECTION_LOST');
      if (!isLost || signal.aborted) throw error;
      if (lostSince === undefined) {
        lostSince = Date.now();
        terminal.err(
          terminal.paint.dim('Lost the connection to Catalyst; the run goes on there. Trying again…\n'),
        );
      } else if (Date.now() - lostSince > RECONNECT_LIMIT_MS) {
        throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS));
    }
  }
  return latest.run;
}

/** How soon a poll the connection dropped under is asked again. */
const RETRY_DELAY_MS = 1_000;

function printRun(terminal: Terminal, run: RunView, isJson: boolean): void {
  if (isJson) {
    terminal.out(`${JSON.stringify(run, null, 2)}\n`);
    return;
  }
  const text = run.result?.result;
  if (text !== undefined && text !== '') terminal.out(text.endsWith('\n') ? text : `${text}\n`);
  const elapsedMs =
    run.endedAt === undefined ? undefined : Date.parse(run.endedAt) - Date.parse(run.startedAt);
  const summary = {
    state: run.state,
    ...(run.result === undefined ? {} : { result: run.result }),
    ...(run.error === undefined ? {} : { error: run.error }),
    ...(elapsedMs === undefined ? {} : { elapsedMs }),
  };
  terminal.err(`${formatOutcomeLine(summary, terminal.paint)}\n`);
}
