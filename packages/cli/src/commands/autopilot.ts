import type { IdeaId, StartAutopilotBody } from '@catalyst/protocol';
import { startAutopilotWatcher, type AutopilotWatcher } from '../autopilot-watcher.ts';
import { createCanceller } from '../canceller.ts';
import { CliError } from '../cli-error.ts';
import type { Command } from '../command.ts';
import type { CommandContext } from '../command-context.ts';
import { ExitCode, exitCodeOfAutopilotState, type ExitCodeValue } from '../exit-codes.ts';
import type { IdeaSocket } from '../idea-socket.ts';
import { newestSeqOf, resolveIdea } from '../idea-ref.ts';
import { onlyStderr } from '../terminal.ts';

type AutopilotCommand = Extract<Command, { kind: 'autopilot' }>;

/**
 * `catalyst autopilot <idea> --step build:"…" …`: POST /api/ideas/:id/autopilot, its progress from the
 * `autopilot:*` events over the WebSocket (subscribed before the start, so no step is missed), the final view as
 * JSON with --json (progress then goes to stderr). Ctrl-C cancels it (POST /api/autopilots/:id/cancel).
 */
export async function runAutopilot(
  context: CommandContext,
  command: AutopilotCommand,
): Promise<ExitCodeValue> {
  const ideaId = await resolveIdea(context.api, command.idea);
  const socket = await context.openSocket();
  try {
    // From the idea's newest event: the autopilot starts only after this, so nothing of it comes before.
    await socket.subscribe(ideaId, await newestSeqOf(context.api, ideaId));
    return await startAndWatch(context, { socket, ideaId, command });
  } finally {
    socket.close();
  }
}

type Target = { socket: IdeaSocket; ideaId: IdeaId; command: AutopilotCommand };

async function startAndWatch(context: CommandContext, target: Target): Promise<ExitCodeValue> {
  const { api, terminal, interrupts } = context;
  const watcher = createWatcher(context, target);
  const canceller = createCanceller({
    what: 'autopilot',
    terminal,
    cancel: (id) => api.call('cancelAutopilot', { params: { autopilotId: id } }),
    isDetached: target.command.detach,
  });
  interrupts.setHandler(canceller.request);
  try {
    const request = { params: { id: target.ideaId }, body: bodyOf(target.command) };
    const { autopilot } = await api.call('startAutopilot', request);
    canceller.attach(autopilot.id);
    const ended = await Promise.race([watcher.follow(autopilot), canceller.gaveUp]);
    if (ended === 'gave_up') return ExitCode.cancelled;
    if (ended === undefined) {
      throw new CliError(
        'CONNECTION_LOST',
        `The connection to Catalyst was lost; the autopilot ${autopilot.id} goes on there.`,
      );
    }
    if (target.command.json) await printFinalView(context, autopilot.id);
    return exitCodeOfAutopilotState(ended.state);
  } finally {
    interrupts.setHandler(undefined);
    canceller.dispose();
    watcher.close();
  }
}

/** Progress and questions go to stdout, or to stderr when stdout is for the JSON. */
function createWatcher(context: CommandContext, target: Target): AutopilotWatcher {
  const { interrupts } = context;
  const terminal = target.command.json ? onlyStderr(context.terminal) : context.terminal;
  return startAutopilotWatcher({
    socket: target.socket,
    terminal,
    ideaId: target.ideaId,
    onInterrupt: interrupts.trigger,
    isForPerson: target.command.policy !== 'auto',
    progress: terminal.out,
  });
}

async function printFinalView(context: CommandContext, autopilotId: string): Promise<void> {
  const final = await context.api.call('getAutopilot', { params: { autopilotId } });
  context.terminal.out(`${JSON.stringify(final.autopilot, null, 2)}\n`);
}

function bodyOf(command: AutopilotCommand): StartAutopilotBody {
  return {
    steps: command.steps,
    questionPolicy: command.policy,
    stopOnFailure: command.stopOnFailure,
    ...(command.budgetUsd === undefined ? {} : { maxBudgetUsd: command.budgetUsd }),
  };
}
