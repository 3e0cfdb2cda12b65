import type { AutopilotView } from '@catalyst/protocol';
import type { Command } from '../command.ts';
import type { CommandContext } from '../command-context.ts';
import { ExitCode, type ExitCodeValue } from '../exit-codes.ts';
import { resolveIdea } from '../idea-ref.ts';
import { formatQueue } from '../queue-lines.ts';

type QueueCommand = Extract<Command, { kind: 'queue' }>;

/**
 * `catalyst queue <idea> [build:"message"]` (issue 30): with a message, queues it (sent at once when the idea is
 * idle and nothing waits; `--now` stops the turn that runs and sends it next); `--resume` goes on with a paused
 * queue, `--clear` removes what waits. Then prints the queue, or the API's JSON with --json.
 */
export async function runQueueCommand(
  context: CommandContext,
  command: QueueCommand,
): Promise<ExitCodeValue> {
  const { api, terminal } = context;
  const id = await resolveIdea(api, command.idea);
  const params = { id };
  let queue: AutopilotView | null;
  switch (command.action.type) {
    case 'show':
      ({ queue } = await api.call('getQueue', { params }));
      break;
    case 'add': {
      const { mode, message } = command.action.step;
      ({ queue } = await api.call('addToQueue', {
        params,
        body: { mode, message, sendNow: command.action.now },
      }));
      break;
    }
    case 'resume':
      ({ queue } = await api.call('resumeQueue', {
        params,
        body: { oneMoreStep: command.action.oneMoreStep },
      }));
      break;
    case 'clear':
      ({ queue } = await api.call('clearQueue', { params }));
      break;
  }
  terminal.out(command.json ? `${JSON.stringify({ queue }, null, 2)}\n` : formatQueue(queue, terminal.paint));
  return ExitCode.completed;
}
