import { z } from 'zod';
import { PermissionModeSchema } from '@catalyst/protocol';
import { CatalystError } from './catalyst-error.ts';
import {
  assertShellSafe,
  findUnsafeCharacter,
  quoteShellArg,
  renderShellCommand,
  wrapForAnyLoginShell,
} from './shell-quote.ts';

/** The smallest cap the CLI's flag can say (six decimals): below it, nothing is left. */
export const MIN_CAP_USD = 0.000001;

/** `usd` rounded down to the flag's six decimals, so that a cap written on a command line is never above its hold. */
export function floorToMicroUsd(usd: number): number {
  return Math.floor(usd * 1_000_000) / 1_000_000;
}

/**
 * Exit status of the rendered script when `cd` into the project directory fails. Chosen outside what the CLI uses
 * (0 and 1, claude-cli-protocol.md §0 and §10), what sh uses (2, 126, 127, 128+signal) and ssh's 255, so a caller
 * can report "project directory not found" instead of a CLI failure.
 */
export const CWD_NOT_FOUND_EXIT_CODE = 86;

export const ENV_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Names the shell owns: bash (which is /bin/sh on some hosts) aborts the script on assigning a readonly one, and
 * PWD or OLDPWD exported after `cd` would lie to the CLI about its working directory.
 */
const RESERVED_ENV_NAMES = new Set([
  'PWD',
  'OLDPWD',
  'PPID',
  'UID',
  'EUID',
  'SHELLOPTS',
  'BASHOPTS',
  'BASH_VERSINFO',
]);

// Marks failures that make a string unsafe for a shell (rather than merely wrong), so they surface as UNSAFE_ARGUMENT.
const UNSAFE_PARAMS = { unsafe: true };

const ShellSafeStringSchema = z.string().check((ctx) => {
  const problem = findUnsafeCharacter(ctx.value);
  if (problem !== undefined) {
    ctx.issues.push({ code: 'custom', input: ctx.value, message: problem, params: UNSAFE_PARAMS });
  }
});

// Commander treats a value starting with '-' as the next flag (`--resume [value]` is optional-valued).
const FlagValueSchema = ShellSafeStringSchema.min(1).refine((s) => !s.startsWith('-'), {
  message: "must not start with '-' (the CLI would read it as a flag)",
});

// The binary is quoted, so the shell never expands a leading '~'; discovery must hand us an expanded path.
const ClaudePathSchema = FlagValueSchema.refine((s) => !s.startsWith('~'), {
  message: "must not start with '~' (it is not expanded inside quotes); give an absolute path or a bare name",
});

const AbsolutePathSchema = ShellSafeStringSchema.refine((s) => s.startsWith('/'), {
  message: 'must be an absolute path',
});

// `--tools` takes built-in tool names joined by ','; a ',' or space inside one name would change the set.
const ToolNameSchema = FlagValueSchema.regex(/^[^,\s]+$/, {
  message: 'must not contain a comma or whitespace',
});

export const SettingSourceSchema = z.enum(['user', 'project', 'local']);
export type SettingSource = z.infer<typeof SettingSourceSchema>;

const EnvNameSchema = ShellSafeStringSchema.regex(ENV_NAME_PATTERN, {
  message: 'must be a valid environment variable name',
}).refine((name) => !RESERVED_ENV_NAMES.has(name), { message: 'is reserved by the shell' });

export const ClaudeCommandOptionsSchema = z.strictObject({
  claudePath: ClaudePathSchema.default('claude'),
  // Not a flag: the CLI has no --project-dir, the process cwd is the project (claude-cli-protocol.md §2.2).
  cwd: AbsolutePathSchema,
  resume: FlagValueSchema.optional(),
  // --tools really restricts the tool set; [] renders `--tools ''`, which disables every tool (§2.4, §5).
  tools: z.array(ToolNameSchema).optional(),
  // --allowedTools only pre-approves; entries may be rules such as "Bash(git *)" (§5).
  allowedTools: z.array(FlagValueSchema).min(1).optional(),
  disallowedTools: z.array(FlagValueSchema).min(1).optional(),
  permissionMode: PermissionModeSchema.optional(),
  model: FlagValueSchema.optional(),
  maxTurns: z.number().int().positive().optional(),
  // The CLI stops itself once the process has cost this much (result/error_max_budget_usd, exit 1).
  maxBudgetUsd: z.number().positive().optional(),
  // A one-off helper run (the question answerer) leaves no session behind to resume or list.
  noSessionPersistence: z.boolean().optional(),
  // With `resume`: the resumed conversation goes on under a new session id, the original left as it was (an aside).
  forkSession: z.boolean().optional(),
  // stream_event lines (text deltas) and system/status "requesting" on stdout (§3.9).
  includePartialMessages: z.boolean().optional(),
  addDirs: z.array(AbsolutePathSchema).optional(),
  // Which settings files the CLI loads; [] renders `--setting-sources ''`, none of them (docs/protocol.md, "Settings").
  settingSources: z.array(SettingSourceSchema).optional(),
  // Only MCP servers named by --mcp-config (never given): none from ~/.claude.json or the project's .mcp.json.
  strictMcpConfig: z.boolean().optional(),
  // Permission rules that make the CLI ask even when an allow rule or a hook would approve the call.
  askRules: z.array(FlagValueSchema).min(1).optional(),
  env: z.record(EnvNameSchema, ShellSafeStringSchema).optional(),
});
export type ClaudeCommandOptionsInput = z.input<typeof ClaudeCommandOptionsSchema>;
export type ClaudeCommandOptions = z.infer<typeof ClaudeCommandOptionsSchema>;

export interface ClaudeCommand {
  readonly argv: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
}

/** Flags every run needs: stream-json both ways, and permission questions routed to us (§0, §8.2). */
const FIXED_FLAGS = [
  '-p',
  '--output-format',
  'stream-json',
  '--verbose',
  '--input-format',
  'stream-json',
  '--permission-prompt-tool',
  'stdio',
] as const;

interface FlatIssue {
  readonly where: string;
  readonly message: string;
  readonly isUnsafe: boolean;
}

function renderIssuePath(path: readonly PropertyKey[]): string {
  const parts = path.map((key) => {
    if (typeof key === 'number') return `[${key}]`;
    const name = String(key);
    return /^[A-Za-z_]\w*$/.test(name) ? `.${name}` : `[${JSON.stringify(name)}]`;
  });
  return parts.join('').replace(/^\./, '') || '(options)';
}

// zod nests the failures of a record key under one `invalid_key` issue; surface the inner reason (e.g. the NUL).
function flattenIssues(issues: readonly z.core.$ZodIssue[], parent: readonly PropertyKey[]): FlatIssue[] {
  return issues.flatMap((issue) => {
    const path = [...parent, ...issue.path];
    if (issue.code === 'invalid_key') {
      return flattenIssues(issue.issues, path).map((inner) => ({
        ...inner,
        message: `key ${inner.message}`,
      }));
    }
    const isUnsafe = issue.code === 'custom' && issue.params?.['unsafe'] === true;
    return [{ where: renderIssuePath(path), message: issue.message, isUnsafe }];
  });
}

/** Parses options from anywhere (typed or not), reporting every problem at once in one CatalystError. */
export function parseClaudeCommandOptions(input: unknown): ClaudeCommandOptions {
  const result = ClaudeCommandOptionsSchema.safeParse(input);
  if (result.success) return result.data;
  const issues = flattenIssues(result.error.issues, []);
  const summary = issues.map((issue) => `${issue.where}: ${issue.message}`).join('; ');
  throw new CatalystError(
    issues.some((issue) => issue.isUnsafe) ? 'UNSAFE_ARGUMENT' : 'INVALID_ARGUMENT',
    `invalid claude command options: ${summary}`,
    { details: { issues: result.error.issues }, cause: result.error },
  );
}

function renderOptionalFlags(o: ClaudeCommandOptions): string[] {
  const flags: string[] = [];
  if (o.resume !== undefined) flags.push('--resume', o.resume);
  if (o.tools !== undefined) flags.push('--tools', o.tools.join(','));
  if (o.allowedTools !== undefined) flags.push('--allowedTools', o.allowedTools.join(','));
  if (o.disallowedTools !== undefined) flags.push('--disallowedTools', o.disallowedTools.join(','));
  if (o.permissionMode !== undefined) flags.push('--permission-mode', o.permissionMode);
  if (o.model !== undefined) flags.push('--model', o.model);
  if (o.maxTurns !== undefined) flags.push('--max-turns', String(o.maxTurns));
  // Rounded down: a cap held against the idea's budget (budget-reservations.ts) never grows on the command line.
  if (o.maxBudgetUsd !== undefined)
    flags.push('--max-budget-usd', floorToMicroUsd(o.maxBudgetUsd).toFixed(6));
  if (o.noSessionPersistence === true) flags.push('--no-session-persistence');
  if (o.forkSession === true) flags.push('--fork-session');
  if (o.includePartialMessages === true) flags.push('--include-partial-messages');
  for (const dir of o.addDirs ?? []) flags.push('--add-dir', dir);
  if (o.settingSources !== undefined) flags.push('--setting-sources', o.settingSources.join(','));
  if (o.strictMcpConfig === true) flags.push('--strict-mcp-config');
  if (o.askRules !== undefined) {
    flags.push('--settings', JSON.stringify({ permissions: { ask: o.askRules } }));
  }
  return flags;
}

/** Validates the options (see parseClaudeCommandOptions) and builds the CLI invocation. */
export function buildClaudeCommand(options: ClaudeCommandOptionsInput): ClaudeCommand {
  const o = parseClaudeCommandOptions(options);
  return {
    argv: [o.claudePath, ...FIXED_FLAGS, ...renderOptionalFlags(o)],
    cwd: o.cwd,
    env: { ...o.env },
  };
}

/** `cd` into the project, or exit with CWD_NOT_FOUND_EXIT_CODE so the caller can tell it apart from a CLI failure. */
export function renderCdLine(cwd: string): string {
  if (!cwd.startsWith('/')) {
    throw new CatalystError('INVALID_ARGUMENT', `cwd must be an absolute path, got ${JSON.stringify(cwd)}`);
  }
  return `cd ${quoteShellArg(cwd)} || exit ${CWD_NOT_FOUND_EXIT_CODE}`;
}

/**
 * One `export NAME='value'` line per variable. Variables go inside the command because sshd drops the ssh2 `env`
 * option without AcceptEnv (ssh-field-notes.md §9). The name is spliced unquoted, so it is re-checked here.
 * Values ride on the command line, readable in the remote `ps` until sh execs: never put a secret here (STYLE.md).
 */
export function renderEnvExports(env: Readonly<Record<string, string>>): string[] {
  return Object.entries(env).map(([name, value]) => {
    assertEnvName(name);
    return `export ${name}=${quoteShellArg(value)}`;
  });
}

/**
 * One `NAME=value` word per variable, for a script that exports its arguments (`export "$1"`: the run wrapper, the
 * session supervisor). The same checks as renderEnvExports; the same warning: values are on a command line.
 */
export function renderEnvAssignments(env: Readonly<Record<string, string>>): string[] {
  return Object.entries(env).map(([name, value]) => {
    assertEnvName(name);
    assertShellSafe(value, 'environment variable value');
    return `${name}=${value}`;
  });
}

function assertEnvName(name: string): void {
  assertShellSafe(name, 'environment variable name');
  // `cr_…` are the VM scripts' own variables (packages/backend/vm): one in a job's env would overwrite them.
  if (!ENV_NAME_PATTERN.test(name) || RESERVED_ENV_NAMES.has(name) || name.startsWith('cr_')) {
    throw new CatalystError('UNSAFE_ARGUMENT', `invalid environment variable name ${JSON.stringify(name)}`);
  }
}

/** The POSIX sh script: cd, exports, then `exec` so the CLI replaces the shell and receives its signals directly. */
export function renderClaudeScript(command: ClaudeCommand): string {
  const lines = [
    renderCdLine(command.cwd),
    ...renderEnvExports(command.env),
    `exec ${renderShellCommand(command.argv)}`,
  ];
  return `${lines.join('\n')}\n`;
}

/** The string to hand to ssh2 `exec`: runs the same way whatever the user's login shell is. */
export function renderClaudeLoginShellCommand(command: ClaudeCommand): string {
  return wrapForAnyLoginShell(renderClaudeScript(command));
}
