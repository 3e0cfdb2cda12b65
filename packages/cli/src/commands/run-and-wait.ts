import { MAX_RUN_WAIT_MS, type RunView } from '@catalyst/protocol';
import type { ApiClient } from '../api-client.ts';
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
    const ended = await Promise.race([waitForEnd(api, latest, polling.signal), canceller.gaveUp]);
    polling.abort();
    const final = ended === 'gave_up' ? latest.run : ended;
    printRun(terminal, final, command.json);
    return ended === 'gave_up' ? exitCodeOfRunState('cancelled') : exitCodeOfRunState(final.state);
  } finally {
    interrupts.setHandler(undefined);
    canceller.dispose();
  }
}

/** Loops on the long poll; `latest` holds the newest view, for a client that stops waiting. */
async function waitForEnd(api: ApiClient, latest: { run: RunView }, signal: AbortSignal): Promise<RunView> {
  while (latest.run.state === 'running') {
    const request = { params: { runId: latest.run.id }, query: { waitMs: MAX_RUN_WAIT_MS } };
    latest.run = (await api.call('getRun', request, signal)).run;
  }
  return latest.run;
}

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
