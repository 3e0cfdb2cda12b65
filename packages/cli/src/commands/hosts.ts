import type { HostCheckView } from '@catalyst/protocol';
import { CliError, isCliError } from '../cli-error.ts';
import type { Command, HostsAction } from '../command.ts';
import type { CommandContext } from '../command-context.ts';
import { ExitCode, type ExitCodeValue } from '../exit-codes.ts';
import { formatHostCheck, formatUnknownHostKey, parseTrustAnswer } from '../host-check-lines.ts';
import { formatHostTable } from '../host-table.ts';
import { promptUntilValid, promptYesNo, type PromptOptions } from '../question-prompt.ts';

type HostsCommand = Extract<Command, { kind: 'hosts' }>;
type ActionOf<T extends HostsAction['type']> = Extract<HostsAction, { type: T }>;

/** `catalyst hosts …` (issue 28): the hosts routes of the REST API, one action each. */
export function runHostsCommand(context: CommandContext, command: HostsCommand): Promise<ExitCodeValue> {
  const { action } = command;
  switch (action.type) {
    case 'list':
      return listHosts(context, action);
    case 'add':
      return addHost(context, action);
    case 'check':
      return checkHost(context, action.name);
    case 'trust':
      return trustHostKey(context, action);
    case 'remove':
      return removeHost(context, action);
    case 'aliases':
      return listAliases(context);
  }
}

/** GET /api/hosts as a table, or as the API's JSON with --json. */
async function listHosts(context: CommandContext, action: ActionOf<'list'>): Promise<ExitCodeValue> {
  const list = await context.api.call('hosts', {});
  context.terminal.out(action.json ? `${JSON.stringify(list, null, 2)}\n` : formatHostTable(list.hosts));
  return ExitCode.completed;
}

/** POST /api/hosts, then the check a new host needs before its first run. */
async function addHost(context: CommandContext, action: ActionOf<'add'>): Promise<ExitCodeValue> {
  const { host } = await context.api.call('addHost', {
    body: {
      name: action.name,
      target: action.target,
      ...(action.ideasRoot === undefined ? {} : { ideasRoot: action.ideasRoot }),
      ...(action.claudePath === undefined ? {} : { claudePath: action.claudePath }),
      ...(action.isDefault ? { isDefault: true } : {}),
    },
  });
  const isDefault = host.isDefault ? ', the default host' : '';
  context.terminal.out(
    `Added ${host.name} (${host.target ?? action.target}): ideas in ${host.ideasRoot}${isDefault}.\n`,
  );
  return checkHost(context, host.name);
}

async function checkHost(context: CommandContext, name: string): Promise<ExitCodeValue> {
  context.terminal.err(context.terminal.paint.dim(`Checking ${name}…\n`));
  const { check } = await context.api.call('checkHost', { params: { name } });
  return reportCheck(context, check);
}

/** `catalyst hosts trust <name> <fingerprint>`: the way to confirm a key where nobody can be asked. */
async function trustHostKey(context: CommandContext, action: ActionOf<'trust'>): Promise<ExitCodeValue> {
  const { name, fingerprint } = action;
  const { check } = await context.api.call('trustHostKey', { params: { name }, body: { fingerprint } });
  return reportCheck(context, check);
}

/**
 * Prints the check; for a host key known nowhere, how to compare it on the VM, and at a terminal asks to confirm
 * it (then prints the check that follows, which may find the next hop's key). Exits 1 unless the host is ready.
 */
async function reportCheck(context: CommandContext, first: HostCheckView): Promise<ExitCodeValue> {
  const { terminal } = context;
  let check = first;
  for (;;) {
    terminal.out(formatHostCheck(check, terminal.paint));
    const key = check.unknownHostKey;
    if (key === undefined) break;
    terminal.out(formatUnknownHostKey(key, terminal.paint));
    if (!terminal.isInteractive) {
      terminal.out(`If it matches: catalyst hosts trust ${check.name} ${key.fingerprint}\n`);
      break;
    }
    const trusted = await askToTrust(context, check.name, key.fingerprint);
    if (trusted === undefined) break;
    check = trusted;
  }
  return check.isReady ? ExitCode.completed : ExitCode.failed;
}

/** The check after the key is confirmed, or undefined when the person declined. A wrong fingerprint asks again. */
async function askToTrust(
  context: CommandContext,
  name: string,
  shown: string,
): Promise<HostCheckView | undefined> {
  const { terminal, api } = context;
  for (;;) {
    const answer = await promptUntilValid(
      promptOptions(context),
      'Trust this key? (type the fingerprint you read on the VM, or yes if it matches) ',
      (input) => {
        const parsed = parseTrustAnswer(input, shown);
        return 'problem' in parsed ? parsed : { value: parsed };
      },
    );
    if (answer === undefined || 'isDeclined' in answer) {
      terminal.out(`The key was not trusted, so ${name} is not ready.\n`);
      return undefined;
    }
    terminal.err(terminal.paint.dim(`Confirming the key and checking ${name} again…\n`));
    try {
      return (await api.call('trustHostKey', { params: { name }, body: { fingerprint: answer.trust } }))
        .check;
    } catch (error) {
      // A fingerprint that is not the host's, or one that is not a fingerprint at all: asked again.
      if (!isCliError(error) || (error.code !== 'FINGERPRINT_MISMATCH' && error.code !== 'INVALID_ARGUMENT'))
        throw error;
      terminal.err(`${terminal.paint.red(error.message)}\n`);
    }
  }
}

/** DELETE /api/hosts/:name; a host that holds ideas only once the person agrees (or --yes). */
async function removeHost(context: CommandContext, action: ActionOf<'remove'>): Promise<ExitCodeValue> {
  const { api, terminal } = context;
  const { name } = action;
  try {
    await api.call('deleteHost', { params: { name } });
  } catch (error) {
    if (!isCliError(error) || error.code !== 'HOST_HAS_IDEAS') throw error;
    if (!action.isConfirmed) {
      if (!terminal.isInteractive) {
        throw new CliError(
          'HOST_HAS_IDEAS',
          `${error.message} From the command line: catalyst hosts remove ${name} --yes`,
          {
            cause: error,
          },
        );
      }
      terminal.err(`${error.message}\n`);
      if ((await promptYesNo(`Remove ${name} anyway?`, promptOptions(context))) !== true) {
        terminal.out(`Kept ${name}.\n`);
        return ExitCode.failed;
      }
    }
    await api.call('deleteHost', { params: { name }, query: { confirm: 'true' } });
  }
  terminal.out(`Removed ${name}.\n`);
  return ExitCode.completed;
}

/** GET /api/ssh-config/aliases: one a line; why ~/.ssh/config could not be read, on stderr, exits 1. */
async function listAliases(context: CommandContext): Promise<ExitCodeValue> {
  const { terminal } = context;
  const { aliases, problem } = await context.api.call('sshAliases', {});
  if (aliases.length > 0) terminal.out(`${aliases.join('\n')}\n`);
  if (problem !== undefined) {
    terminal.err(`catalyst: ${terminal.paint.red(`Cannot read ~/.ssh/config: ${problem}`)}\n`);
    return ExitCode.failed;
  }
  if (aliases.length === 0) terminal.err('No Host aliases in ~/.ssh/config.\n');
  return ExitCode.completed;
}

/** Prompts here are never withdrawn; Ctrl-C at one exits 130 (nothing is started on the server to cancel). */
function promptOptions(context: CommandContext): PromptOptions {
  return {
    terminal: context.terminal,
    onInterrupt: context.interrupts.trigger,
    signal: new AbortController().signal,
  };
}
