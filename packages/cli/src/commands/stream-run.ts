import type { IdeaId } from '@catalyst/protocol';
import { CliError } from '../cli-error.ts';
import type { Command } from '../command.ts';
import type { CommandContext } from '../command-context.ts';
import { ExitCode, exitCodeOfRunState, type ExitCodeValue } from '../exit-codes.ts';
import type { IdeaSocket } from '../idea-socket.ts';
import { newestSeqOf, resolveIdea } from '../idea-ref.ts';
import { startRunFollower } from '../run-follower.ts';
import { createRunCanceller, postRun } from './run-start.ts';

type StreamCommand = Extract<Command, { kind: 'stream' }>;

/**
 * `catalyst chat|build <idea> "message"`: subscribes to the idea first (so no live text is missed), starts the
 * run over REST (which names it), and shows it until its `run:ended`; Ctrl-C cancels it.
 */
export async function streamRun(context: CommandContext, command: StreamCommand): Promise<ExitCodeValue> {
  const ideaId = await resolveIdea(context.api, command.idea);
  const socket = await context.openSocket();
  try {
    // From the idea's newest event: the run is named only after this, so nothing of it comes before.
    await socket.subscribe(ideaId, await newestSeqOf(context.api, ideaId));
    return await startAndFollow(context, { socket, ideaId, command });
  } finally {
    socket.close();
  }
}

async function startAndFollow(
  context: CommandContext,
  target: { socket: IdeaSocket; ideaId: IdeaId; command: StreamCommand },
): Promise<ExitCodeValue> {
  const { api, terminal, interrupts } = context;
  const { socket, ideaId, command } = target;
  const follower = startRunFollower({ socket, terminal, ideaId, onInterrupt: interrupts.trigger });
  const canceller = createRunCanceller(context, command.detach);
  interrupts.setHandler(canceller.request);
  try {
    const run = await postRun(api, ideaId, command);
    canceller.attach(run.id);
    const ended = await Promise.race([follower.follow(run.id), canceller.gaveUp]);
    if (ended === 'gave_up') return ExitCode.cancelled;
    if (ended === undefined) {
      throw new CliError(
        'CONNECTION_LOST',
        `The connection to Catalyst was lost; the run ${run.id} goes on there.`,
      );
    }
    return exitCodeOfRunState(ended.outcome);
  } finally {
    interrupts.setHandler(undefined);
    canceller.dispose();
    follower.close();
  }
}
