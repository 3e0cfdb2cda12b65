import { homedir } from 'node:os';
import { createApiClient } from './api-client.ts';
import { parseInvocation } from './argv.ts';
import { isCliError } from './cli-error.ts';
import { COMMAND_NAMES, type Command, type Invocation } from './command.ts';
import type { CommandContext } from './command-context.ts';
import { runAutopilot } from './commands/autopilot.ts';
import { runHostsCommand } from './commands/hosts.ts';
import { runQueueCommand } from './commands/queue.ts';
import { runShell } from './commands/shell.ts';
import { createIdea, listIdeas } from './commands/ideas.ts';
import { runAndWait } from './commands/run-and-wait.ts';
import { streamRun } from './commands/stream-run.ts';
import { ExitCode, exitCodeOfError, type ExitCodeValue } from './exit-codes.ts';
import { openIdeaSocket } from './idea-socket.ts';
import { openTerminalSocket } from './terminal-socket.ts';
import { listenForInterrupts } from './interrupts.ts';
import { readToken, resolveSettings } from './settings.ts';
import { createProcessTerminal, flushStreams, type Terminal } from './terminal.ts';
import { formatCommandUsage, formatUsage, formatUsageHint } from './usage.ts';

/**
 * The `catalyst` command (bin/catalyst.mjs): parse the command line, run the command against Catalyst's REST and
 * WebSocket API, print what happened, exit with the code the README lists. Nothing reaches the terminal as a
 * stack trace: a problem is one sentence on stderr.
 */
export async function main(argv: readonly string[]): Promise<void> {
  const terminal = createProcessTerminal(process.env);
  const exit = (code: number): void => {
    void flushStreams().then(() => process.exit(code));
  };
  const interrupts = listenForInterrupts(terminal, exit);
  const code = await runCli(argv, { terminal, interrupts });
  // Explicitly: an idle keep-alive socket or a closed readline must not hold the process open.
  exit(code);
}

async function runCli(
  argv: readonly string[],
  io: Pick<CommandContext, 'terminal' | 'interrupts'>,
): Promise<ExitCodeValue> {
  const { terminal } = io;
  let invocation: Invocation;
  try {
    invocation = parseInvocation(argv);
  } catch (error) {
    return reportError(terminal, error, argv);
  }
  const { command } = invocation;
  if (command.kind === 'help') {
    terminal.out(command.topic === undefined ? formatUsage() : formatCommandUsage(command.topic));
    return ExitCode.completed;
  }
  try {
    const context = await connect(invocation, io);
    return await dispatch(context, command);
  } catch (error) {
    return reportError(terminal, error, argv);
  }
}

async function connect(
  invocation: Invocation,
  io: Pick<CommandContext, 'terminal' | 'interrupts'>,
): Promise<CommandContext> {
  const settings = await resolveSettings({
    flags: invocation.connection,
    env: process.env,
    homeDir: homedir(),
    cwd: process.cwd(),
  });
  const token = await readToken(settings.tokenFile);
  return {
    ...io,
    api: createApiClient(settings.url, token),
    openSocket: () => openIdeaSocket(settings.url, token),
    openTerminalSocket: () => openTerminalSocket(settings.url, token),
  };
}

function dispatch(
  context: CommandContext,
  command: Exclude<Command, { kind: 'help' }>,
): Promise<ExitCodeValue> {
  switch (command.kind) {
    case 'ideas':
      return listIdeas(context, command);
    case 'new':
      return createIdea(context, command);
    case 'stream':
      return streamRun(context, command);
    case 'run':
      return runAndWait(context, command);
    case 'autopilot':
      return runAutopilot(context, command);
    case 'hosts':
      return runHostsCommand(context, command);
    case 'queue':
      return runQueueCommand(context, command);
    case 'shell':
      return runShell(context, command);
  }
}

function reportError(terminal: Terminal, error: unknown, argv: readonly string[]): ExitCodeValue {
  if (!isCliError(error)) {
    // A bug in this client: say so in a sentence; the stack only on request.
    const detail =
      process.env.CATALYST_DEBUG === '1' && error instanceof Error ? `\n${error.stack ?? ''}` : '';
    terminal.err(
      `catalyst: unexpected error: ${error instanceof Error ? error.message : String(error)}${detail}\n`,
    );
    return ExitCode.failed;
  }
  terminal.err(`catalyst: ${terminal.paint.red(error.message)}\n`);
  if (error.code === 'USAGE') {
    const name = COMMAND_NAMES.find((candidate) => argv.includes(candidate));
    terminal.err(formatUsageHint(name));
  }
  return exitCodeOfError(error.code);
}
