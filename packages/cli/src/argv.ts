import { parseArgs } from 'node:util';
import { MAX_BUDGET_USD, QuestionPolicySchema, type RunMode } from '@catalyst/protocol';
import { z } from 'zod';
import { usageError } from './cli-error.ts';
import {
  COMMAND_NAMES,
  type Command,
  type CommandName,
  type Invocation,
  type QueueAction,
} from './command.ts';
import { parseHostsAction, type HostsOptionValues } from './hosts-argv.ts';
import { parseStepSpec } from './step-spec.ts';

/**
 * The command line, parsed with node:util's parseArgs in one pass over every option any command knows (so a
 * global option may come before or after the command), then checked against what the chosen command accepts.
 */
const OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  url: { type: 'string' },
  'token-file': { type: 'string' },
  json: { type: 'boolean' },
  description: { type: 'string' },
  host: { type: 'string' },
  build: { type: 'string' },
  chat: { type: 'string' },
  step: { type: 'string', multiple: true },
  policy: { type: 'string' },
  budget: { type: 'string' },
  'continue-on-failure': { type: 'boolean' },
  detach: { type: 'boolean' },
  name: { type: 'string' },
  'ideas-root': { type: 'string' },
  'claude-path': { type: 'string' },
  default: { type: 'boolean' },
  yes: { type: 'boolean', short: 'y' },
  now: { type: 'boolean' },
  resume: { type: 'boolean' },
  'one-more-step': { type: 'boolean' },
  clear: { type: 'boolean' },
} as const;
type OptionName = keyof typeof OPTIONS;
type Values = ReturnType<typeof parseWithNode>['values'];

const GLOBAL_OPTIONS: readonly OptionName[] = ['help', 'url', 'token-file'];
const COMMAND_OPTIONS: Record<CommandName, readonly OptionName[]> = {
  ideas: ['json'],
  new: ['description', 'host', 'json'],
  chat: ['budget', 'detach'],
  build: ['budget', 'detach'],
  run: ['build', 'chat', 'budget', 'json', 'detach'],
  autopilot: ['step', 'policy', 'budget', 'continue-on-failure', 'json', 'detach'],
  hosts: ['json', 'name', 'ideas-root', 'claude-path', 'default', 'yes'],
  queue: ['json', 'now', 'resume', 'one-more-step', 'clear'],
  shell: [],
};

const CommandNameSchema = z.enum(COMMAND_NAMES);
const BudgetSchema = z.coerce.number().positive().max(MAX_BUDGET_USD);

export function parseInvocation(argv: readonly string[]): Invocation {
  const { values, positionals } = parseWithNode(argv);
  const connection = {
    ...(values.url === undefined ? {} : { url: values.url }),
    ...(values['token-file'] === undefined ? {} : { tokenFile: values['token-file'] }),
  };
  const [first, ...rest] = positionals;
  if (first === undefined) {
    if (values.help === true) return { connection, command: { kind: 'help' } };
    throw usageError('no command given');
  }
  if (first === 'help') return { connection, command: helpFor(rest[0]) };
  const name = CommandNameSchema.safeParse(first);
  if (!name.success) throw usageError(`unknown command '${first}'`);
  if (values.help === true) return { connection, command: { kind: 'help', topic: name.data } };
  checkOptions(name.data, values);
  return { connection, command: buildCommand(name.data, rest, values) };
}

function parseWithNode(argv: readonly string[]) {
  try {
    return parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    // parseArgs explains itself in a sentence (unknown option, missing value); that is the usage error.
    throw usageError(error instanceof Error ? error.message : String(error));
  }
}

function helpFor(topic: string | undefined): Command {
  const name = CommandNameSchema.safeParse(topic);
  return name.success ? { kind: 'help', topic: name.data } : { kind: 'help' };
}

function checkOptions(name: CommandName, values: Values): void {
  const allowed = new Set<string>([...GLOBAL_OPTIONS, ...COMMAND_OPTIONS[name]]);
  for (const key of Object.keys(values)) {
    if (!allowed.has(key)) throw usageError(`${name} takes no --${key}`);
  }
}

function buildCommand(name: CommandName, args: string[], values: Values): Command {
  switch (name) {
    case 'ideas':
      checkArgCount(name, args, []);
      return { kind: 'ideas', json: values.json === true };
    case 'new':
      return buildNew(args, values);
    case 'chat':
    case 'build': {
      const [idea, message] = expectTwo(name, args, ['idea', 'message']);
      return {
        kind: 'stream',
        mode: name,
        idea,
        message,
        detach: values.detach === true,
        ...budgetOf(values),
      };
    }
    case 'run':
      return buildRun(args, values);
    case 'autopilot':
      return buildAutopilot(args, values);
    case 'hosts':
      return { kind: 'hosts', action: parseHostsAction(args, hostsOptionsOf(values)) };
    case 'queue':
      return buildQueue(args, values);
    case 'shell': {
      const [idea, ...more] = args;
      if (idea === undefined || more.length > 0) throw usageError('shell takes one <idea>');
      return { kind: 'shell', idea: nonEmpty(idea, '<idea>') };
    }
  }
}

function buildQueue(args: string[], values: Values): Command {
  const [idea, spec, ...more] = args;
  if (idea === undefined || more.length > 0) {
    throw usageError('queue takes <idea> and at most one message, as build:"message" or chat:"message"');
  }
  const chosen = [spec !== undefined, values.resume === true, values.clear === true].filter(Boolean);
  if (chosen.length > 1) throw usageError('queue: give a message, --resume or --clear, one of them');
  if (values.now === true && spec === undefined) throw usageError('queue: --now goes with a message');
  if (values['one-more-step'] === true && values.resume !== true) {
    throw usageError('queue: --one-more-step goes with --resume');
  }
  const action: QueueAction =
    spec !== undefined
      ? { type: 'add', step: parseStepSpec(spec), now: values.now === true }
      : values.resume === true
        ? { type: 'resume', oneMoreStep: values['one-more-step'] === true }
        : values.clear === true
          ? { type: 'clear' }
          : { type: 'show' };
  return { kind: 'queue', idea: nonEmpty(idea, '<idea>'), action, json: values.json === true };
}

/** Only the options given, so each hosts action can refuse one it does not take. */
function hostsOptionsOf(values: Values): HostsOptionValues {
  const { json, name, 'ideas-root': ideasRoot, 'claude-path': claudePath, default: isDefault, yes } = values;
  return {
    ...(json === undefined ? {} : { json }),
    ...(name === undefined ? {} : { name }),
    ...(ideasRoot === undefined ? {} : { 'ideas-root': ideasRoot }),
    ...(claudePath === undefined ? {} : { 'claude-path': claudePath }),
    ...(isDefault === undefined ? {} : { default: isDefault }),
    ...(yes === undefined ? {} : { yes }),
  };
}

function buildNew(args: string[], values: Values): Command {
  const title = expectOne('new', args, 'title');
  return {
    kind: 'new',
    title,
    json: values.json === true,
    ...(values.description === undefined ? {} : { description: values.description }),
    ...(values.host === undefined ? {} : { host: values.host }),
  };
}

function buildRun(args: string[], values: Values): Command {
  const idea = expectOne('run', args, 'idea');
  const given: [RunMode, string | undefined][] = [
    ['build', values.build],
    ['chat', values.chat],
  ];
  const chosen = given.filter((entry): entry is [RunMode, string] => entry[1] !== undefined);
  const [only] = chosen;
  if (chosen.length !== 1 || only === undefined) {
    throw usageError('run: give exactly one of --build "message" or --chat "message"');
  }
  const [mode, message] = only;
  return {
    kind: 'run',
    mode,
    idea,
    message: nonEmpty(message, `--${mode}`),
    json: values.json === true,
    detach: values.detach === true,
    ...budgetOf(values),
  };
}

function buildAutopilot(args: string[], values: Values): Command {
  const idea = expectOne('autopilot', args, 'idea');
  const specs = values.step ?? [];
  if (specs.length === 0) throw usageError('autopilot: give at least one --step build:"message"');
  const policy = QuestionPolicySchema.safeParse(values.policy ?? 'auto');
  if (!policy.success) throw usageError(`--policy is one of ${QuestionPolicySchema.options.join(', ')}`);
  return {
    kind: 'autopilot',
    idea,
    steps: specs.map(parseStepSpec),
    policy: policy.data,
    stopOnFailure: values['continue-on-failure'] !== true,
    json: values.json === true,
    detach: values.detach === true,
    ...budgetOf(values),
  };
}

/** A command's positional arguments, all required: a message with spaces must be quoted. */
function checkArgCount(name: CommandName, args: readonly string[], names: readonly string[]): void {
  if (args.length === names.length) return;
  const wanted = names.length === 0 ? 'no arguments' : names.map((arg) => `<${arg}>`).join(' ');
  const hint = args.length > names.length ? ' (quote a message that has spaces)' : '';
  throw usageError(`${name} takes ${wanted}${hint}`);
}

function expectOne(name: CommandName, args: readonly string[], what: string): string {
  checkArgCount(name, args, [what]);
  const [only = ''] = args;
  return nonEmpty(only, `<${what}>`);
}

function expectTwo(name: CommandName, args: readonly string[], what: [string, string]): [string, string] {
  checkArgCount(name, args, what);
  const [first = '', second = ''] = args;
  return [nonEmpty(first, `<${what[0]}>`), nonEmpty(second, `<${what[1]}>`)];
}

function nonEmpty(value: string, what: string): string {
  if (value.trim() === '') throw usageError(`${what} is empty`);
  return value;
}

function budgetOf(values: Values): { budgetUsd?: number } {
  if (values.budget === undefined) return {};
  const budget = BudgetSchema.safeParse(values.budget);
  if (!budget.success) throw usageError(`--budget is an amount in USD above 0, like 5 or 0.5`);
  return { budgetUsd: budget.data };
}
