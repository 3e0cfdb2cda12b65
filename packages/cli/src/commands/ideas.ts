import type { CreateIdeaBodySchema } from '@catalyst/protocol';
import type { z } from 'zod';
import type { Command } from '../command.ts';
import type { CommandContext } from '../command-context.ts';
import { ExitCode, type ExitCodeValue } from '../exit-codes.ts';
import { formatIdeaTable } from '../idea-table.ts';

type IdeasCommand = Extract<Command, { kind: 'ideas' }>;
type NewCommand = Extract<Command, { kind: 'new' }>;

/** `catalyst ideas`: GET /api/ideas as a table, or as the API's JSON with --json. */
export async function listIdeas(context: CommandContext, command: IdeasCommand): Promise<ExitCodeValue> {
  const list = await context.api.call('listIdeas', {});
  context.terminal.out(command.json ? `${JSON.stringify(list, null, 2)}\n` : formatIdeaTable(list.ideas));
  return ExitCode.completed;
}

/** `catalyst new "title"`: POST /api/ideas, then the new idea's id on stdout (the whole idea with --json). */
export async function createIdea(context: CommandContext, command: NewCommand): Promise<ExitCodeValue> {
  const body: z.input<typeof CreateIdeaBodySchema> = {
    title: command.title,
    ...(command.description === undefined ? {} : { description: command.description }),
    ...(command.host === undefined ? {} : { host: command.host }),
  };
  const { idea } = await context.api.call('createIdea', { body });
  context.terminal.out(command.json ? `${JSON.stringify({ idea }, null, 2)}\n` : `${idea.id}\n`);
  return ExitCode.completed;
}
