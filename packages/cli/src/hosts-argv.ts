import { usageError } from './cli-error.ts';
import type { HostsAction } from './command.ts';
import { deriveHostName } from './host-name.ts';

/** The options `catalyst hosts …` may be given, as argv.ts parsed them. */
export interface HostsOptionValues {
  json?: boolean;
  name?: string;
  'ideas-root'?: string;
  'claude-path'?: string;
  default?: boolean;
  yes?: boolean;
}

const ACTIONS = ['list', 'add', 'check', 'trust', 'remove', 'aliases'] as const;
type ActionType = (typeof ACTIONS)[number];

const ARGUMENTS: Record<ActionType, readonly string[]> = {
  list: [],
  add: ['alias|user@host[:port]'],
  check: ['name'],
  trust: ['name', 'fingerprint'],
  remove: ['name'],
  aliases: [],
};
const OPTIONS: Record<ActionType, readonly (keyof HostsOptionValues)[]> = {
  list: ['json'],
  add: ['name', 'ideas-root', 'claude-path', 'default'],
  check: [],
  trust: [],
  remove: ['yes'],
  aliases: [],
};

/**
 * `hosts` (or `hosts list`) lists them; `hosts <action> …` does the rest. Each action's arguments are all
 * required. `values` holds only the options given that are hosts options (argv.ts checked the rest).
 */
export function parseHostsAction(args: readonly string[], values: HostsOptionValues): HostsAction {
  const [first, ...rest] = args;
  const action = first === undefined ? 'list' : ACTIONS.find((known) => known === first);
  if (action === undefined) throw usageError(`unknown hosts action '${first ?? ''}'`);
  const label = first === undefined ? 'hosts' : `hosts ${action}`;
  const allowed = new Set<string>(OPTIONS[action]);
  for (const key of Object.keys(values)) {
    if (!allowed.has(key)) throw usageError(`${label} takes no --${key}`);
  }
  const wanted = ARGUMENTS[action];
  if (rest.length !== wanted.length || rest.some((arg) => arg.trim() === '')) {
    const what = wanted.length === 0 ? 'no arguments' : wanted.map((arg) => `<${arg}>`).join(' ');
    throw usageError(`${label} takes ${what}`);
  }
  return buildAction(action, rest, values);
}

function buildAction(action: ActionType, args: readonly string[], values: HostsOptionValues): HostsAction {
  const [first = '', second = ''] = args;
  switch (action) {
    case 'list':
      return { type: 'list', json: values.json === true };
    case 'add':
      return {
        type: 'add',
        target: first,
        name: values.name ?? deriveHostName(first),
        isDefault: values.default === true,
        ...(values['ideas-root'] === undefined ? {} : { ideasRoot: values['ideas-root'] }),
        ...(values['claude-path'] === undefined ? {} : { claudePath: values['claude-path'] }),
      };
    case 'check':
      return { type: 'check', name: first };
    case 'trust':
      return { type: 'trust', name: first, fingerprint: second };
    case 'remove':
      return { type: 'remove', name: first, isConfirmed: values.yes === true };
    case 'aliases':
      return { type: 'aliases' };
  }
}
