import { COMMAND_NAMES, type CommandName } from './command.ts';
import { DEFAULT_URL } from './settings.ts';

/** The help text: `catalyst --help`, `catalyst help <command>`, and the line under a usage error. */

const COMMAND_USAGE: Record<CommandName, string> = {
  ideas: 'catalyst ideas [--json]',
  new: 'catalyst new "title" [--description "…"] [--host NAME] [--json]',
  chat: 'catalyst chat <idea> "message" [--budget USD] [--detach]',
  build: 'catalyst build <idea> "message" [--budget USD] [--detach]',
  run: 'catalyst run <idea> (--build "message" | --chat "message") [--json] [--budget USD] [--detach]',
  autopilot:
    'catalyst autopilot <idea> --step build:"message" [--step chat:"message" …]\n' +
    '          [--policy auto|human_then_auto|human] [--budget USD] [--continue-on-failure] [--json]\n' +
    '          [--detach]',
  queue:
    'catalyst queue <idea> [build:"message" | chat:"message"] [--now] [--json]\n' +
    '  catalyst queue <idea> --resume [--one-more-step]\n' +
    '  catalyst queue <idea> --clear',
  shell: 'catalyst shell <idea>',
  hosts:
    'catalyst hosts [--json]\n' +
    '  catalyst hosts add <alias|user@host[:port]> [--name NAME] [--ideas-root PATH]\n' +
    '          [--claude-path PATH] [--default]\n' +
    '  catalyst hosts check <name>\n' +
    '  catalyst hosts trust <name> <fingerprint>\n' +
    '  catalyst hosts remove <name> [--yes]\n' +
    '  catalyst hosts aliases',
};

const COMMAND_SUMMARY: Record<CommandName, string> = {
  ideas: 'list the ideas: id, status, title',
  new: 'capture an idea; prints its id',
  chat: 'talk it through with Claude (read-only), streamed here',
  build: 'have Claude build it in the idea’s project, streamed here',
  run: 'start a run and wait for its end, no streaming; --json prints the run',
  autopilot: 'run steps one after the other, unattended: a line per step, each step streamed here',
  queue: 'the messages waiting to be sent once Claude is idle: list them, queue one, go on after a pause',
  shell: 'a shell on the idea’s host, in its project folder (exit or Ctrl-D ends it)',
  hosts: 'list the hosts (* marks the default); add one, check it, confirm its key, remove it',
};

/** More than a line says, for `catalyst help <command>`. */
const COMMAND_DETAILS: Partial<Record<CommandName, string>> = {
  shell: `
  The same terminal as the idea's page: a login shell on the idea's host (over SSH on a VM), in its
  project folder. Everything it starts is stopped when it ends. At a terminal, keys go to the remote
  shell as typed (Ctrl-C too) and a window change follows; piped, the input is typed (read no faster
  than it is sent) and its end ends the shell. A dropped connection is re-attached to the same shell
  for up to a minute (a line on stderr says it was lost, one that it is back); what is typed meanwhile
  waits and is sent once back; piped input is not resumed (part of it may be lost) and exits 3. Exits 0
  when the shell exits 0, 1 otherwise (or if the shell ended while the connection was lost), 3 when
  Catalyst could not be reached again in time.
`,
  queue: `
  A message queued while a run or a queue goes waits and is sent, in order, once the idea is idle; one
  queued when nothing runs or waits is sent at once. --now stops the turn that runs (as Ctrl-C in
  \`catalyst build\` does) and sends this message next. A queue pauses when a queued message fails or is
  stopped, or when its budget is spent; --resume goes on (--one-more-step: one step past its budget),
  --clear removes what waits. The page edits, moves and removes queued messages.
`,
  hosts: `
  add      adds an SSH host by an alias of ~/.ssh/config or as user@host[:port], named after it unless
           --name is given, then checks it.
  check    runs each step (resolve, connect, host key, authentication, claude, login, tools, disk) and
           exits 1 unless the host is ready. A host key known nowhere is shown with how to compare it on
           the VM; at a terminal you are asked to confirm it, elsewhere \`catalyst hosts trust\` does.
  trust    confirms that key by its fingerprint as the VM shows it (ssh-keygen -lf), then checks again.
  remove   asks first when the host holds ideas (they stay on the VM and come back with the host);
           --yes removes it without asking.
  aliases  the Host aliases of ~/.ssh/config on the machine running Catalyst.
`,
};

export function formatUsage(): string {
  const commands = COMMAND_NAMES.map(
    (name) => `  ${COMMAND_USAGE[name]}\n      ${COMMAND_SUMMARY[name]}`,
  ).join('\n');
  return `Catalyst from the command line: the same ideas, runs and autopilots as the web app.

Usage:
${commands}

<idea> is an idea's id, or the title of exactly one idea.

Options for every command:
  --url URL          where Catalyst listens (CATALYST_URL, CATALYST_PORT, else the url file beside the token;
                     default ${DEFAULT_URL})
  --token-file FILE  its access token (CATALYST_TOKEN_FILE; default ~/.config/catalyst/token)
  -h, --help         this text

Ctrl-C or SIGTERM cancels the run or autopilot on the server and waits for it; with --detach it is left
going there (said on stderr) and the command exits at once.

Exit codes: 0 completed, 1 failed (or an error from Catalyst, or a host not ready), 2 usage error,
3 timed out or connection lost, 130 cancelled or left (--detach).
`;
}

export function formatCommandUsage(name: CommandName): string {
  return `Usage: ${COMMAND_USAGE[name]}\n  ${COMMAND_SUMMARY[name]}\n${COMMAND_DETAILS[name] ?? ''}`;
}

export function formatUsageHint(name: CommandName | undefined): string {
  const usage = name === undefined ? '' : `Usage: ${COMMAND_USAGE[name]}\n`;
  return `${usage}Run 'catalyst --help' for every command.\n`;
}
