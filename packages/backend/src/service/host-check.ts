import { posix } from 'node:path';
import { z } from 'zod';
import {
  HostCheckStepIdSchema,
  type HostCheckStep,
  type HostCheckStepId,
  type HostCheckView,
  type PresentedHostKey,
} from '@catalyst/protocol';
import { isCatalystError } from '../core/catalyst-error.ts';
import type { HostEntry } from '../host/host-entry.ts';
import type { Host, Preflight } from '../host/host.ts';
import { runHostCommand } from '../host/host-command.ts';
import { hostKeyFileOf } from '../host/ssh/host-key-trust.ts';
import { messageOf } from './idea-meta-changes.ts';

/**
 * A host's check, step by step (issue 28), on a connection of its own: resolve (the ssh_config route), connect
 * (each jump), host key, authentication, claude found, logged in (`claude auth status --json`, no model call),
 * the tools runs need, free space. A failed step says what to do next and skips the rest.
 */

export interface HostCheckResult {
  readonly view: HostCheckView;
  /** The key a person may confirm: what the host presented, never what a client sends. */
  readonly presentedKey?: { readonly publicKey: string; readonly key: PresentedHostKey };
}

const AuthStatusSchema = z.looseObject({ loggedIn: z.boolean(), authMethod: z.string().optional() });
const LOW_SPACE_KB = 1024 * 1024;
const NO_SPACE_KB = 100 * 1024;

export async function checkHostSteps(entry: HostEntry, host: Host): Promise<HostCheckResult> {
  const steps: HostCheckStep[] = [];
  const add = (id: HostCheckStepId, step: Omit<HostCheckStep, 'id'>) => steps.push({ id, ...step });
  const alias = sshArgumentsOf(entry);
  let ignored: readonly string[] = [];
  try {
    const route = await host.describeRoute?.();
    ignored = route?.ignored ?? [];
    add('resolve', { status: 'ok', detail: route === undefined ? host.label : describeRoute(route) });
  } catch (error) {
    add('resolve', failed(error, `Fix ~/.ssh/config where it says, then check again.`));
    return finish(entry, steps, ignored);
  }
  let home: string;
  try {
    home = await host.homeDir();
  } catch (error) {
    const presented = connectFailure(error, alias, add);
    return finish(entry, steps, ignored, presented);
  }
  add('connect', { status: 'ok', detail: `reached ${host.label}` });
  add('host-key', { status: 'ok', detail: 'the host key is known' });
  const authenticatedWith = host.authenticatedWith?.();
  add('auth', {
    status: 'ok',
    detail: `${authenticatedWith === undefined ? 'logged in' : `logged in with ${authenticatedWith}`}; home ${home}`,
  });
  try {
    await checkClaude({ entry, host, home, alias, add });
  } catch (error) {
    // The step that was running when the host stopped answering.
    const done = new Set(steps.map((step) => step.id));
    const running = ORDER.find((id) => !done.has(id)) ?? 'disk';
    add(running, failed(error, 'Check again; if it fails the same way, look at the VM.'));
  }
  return finish(entry, steps, ignored);
}

type AddStep = (id: HostCheckStepId, step: Omit<HostCheckStep, 'id'>) => void;

async function checkClaude(context: {
  entry: HostEntry;
  host: Host;
  home: string;
  alias: string;
  add: AddStep;
}): Promise<void> {
  const { entry, host, home, alias, add } = context;
  const preflight = await host.preflight();
  const claudePath = entry.claudePath ?? preflight.claudePath;
  if (claudePath === undefined) {
    add('claude', {
      status: 'failed',
      detail: preflight.problems.join('; ') || 'claude is not on the PATH nor in the usual places',
      fix: 'Install Claude Code on the VM (npm install -g @anthropic-ai/claude-code), or give the host its claude path.',
    });
    return;
  }
  add('claude', {
    status: 'ok',
    detail: `claude ${preflight.version ?? '(version unknown)'} at ${claudePath}`,
  });
  const path = `${posix.dirname(claudePath)}:${preflight.path}`;
  add('login', await checkLogin(host, { claudePath, path, home, alias }));
  add('tools', toolsStep(preflight));
  add('disk', await checkDisk(host, { root: entry.ideasRoot, home }));
}

async function checkLogin(
  host: Host,
  where: { claudePath: string; path: string; home: string; alias: string },
): Promise<Omit<HostCheckStep, 'id'>> {
  const result = await runHostCommand(host, {
    argv: [where.claudePath, 'auth', 'status', '--json'],
    cwd: where.home,
    env: { PATH: where.path },
    timeoutMs: 30_000,
    maxStdoutBytes: 64 * 1024,
  });
  // The exit code differs between CLI versions (1 when logged out on 2.1.331): only `loggedIn` decides.
  const status = AuthStatusSchema.safeParse(safeJson(result.stdout.toString('utf8')));
  if (!status.success) {
    return {
      status: 'warning',
      detail: `could not tell: \`claude auth status --json\` answered ${result.stderrTail.trim().slice(0, 200) || 'nothing Catalyst understands'}`,
      fix: 'Update Claude Code on the VM (claude update); runs may still work.',
    };
  }
  if (status.data.loggedIn)
    return { status: 'ok', detail: `logged in (${status.data.authMethod ?? 'unknown method'})` };
  return {
    status: 'failed',
    detail: 'claude on the VM is not logged in',
    fix: `Run \`ssh -t ${where.alias} claude\` and log in with /login, or set ANTHROPIC_API_KEY for the VM's user.`,
  };
}

function toolsStep(preflight: Preflight): Omit<HostCheckStep, 'id'> {
  if (!preflight.canRunWrapper) {
    return {
      status: 'failed',
      detail: preflight.problems.join('; '),
      fix: 'Install what is missing on the VM (e.g. apt-get install util-linux coreutils git).',
    };
  }
  const warnings = preflight.warnings ?? [];
  if (warnings.length > 0)
    return { status: 'warning', detail: warnings.join('; '), fix: 'Install git on the VM.' };
  return { status: 'ok', detail: 'git, flock, tail, setsid and the rest are there' };
}

async function checkDisk(
  host: Host,
  where: { root: string; home: string },
): Promise<Omit<HostCheckStep, 'id'>> {
  const root = where.root === '~' ? where.home : where.root.replace(/^~\//, `${where.home}/`);
  // The root may not exist yet: df of the nearest folder that does, through the shell (no path in a script).
  const result = await runHostCommand(host, {
    argv: [
      'sh',
      '-c',
      'p=$1; while [ ! -e "$p" ] && [ "$p" != / ]; do p=$(dirname "$p"); done; df -Pk "$p"',
      'df',
      root,
    ],
    cwd: where.home,
    timeoutMs: 15_000,
    maxStdoutBytes: 8 * 1024,
  });
  const fields = result.stdout.toString('utf8').trim().split('\n').at(-1)?.split(/\s+/) ?? [];
  const available = Number(fields[3]);
  if (!Number.isFinite(available))
    return { status: 'warning', detail: `could not read the free space of ${root}` };
  const text = `${(available / 1024 / 1024).toFixed(1)} GB free for ${root}`;
  if (available < NO_SPACE_KB) return { status: 'failed', detail: text, fix: 'Free some space on the VM.' };
  if (available < LOW_SPACE_KB)
    return { status: 'warning', detail: text, fix: 'Free some space on the VM soon.' };
  return { status: 'ok', detail: text };
}

/** Which step a connection failure belongs to, with what to do; the unknown key when that is what failed. */
function connectFailure(error: unknown, alias: string, add: AddStep): HostCheckResult['presentedKey'] {
  const code = isCatalystError(error) ? error.code : 'SSH_CONNECT_FAILED';
  const details = isCatalystError(error) ? error.details : {};
  if (code === 'SSH_CONFIG_INVALID' || code === 'SSH_CONFIG_UNSUPPORTED') {
    add('resolve', failed(error, 'Fix ~/.ssh/config where it says, then check again.'));
    return undefined;
  }
  const isKey =
    code === 'SSH_HOST_KEY_UNKNOWN' || code === 'SSH_HOST_KEY_MISMATCH' || code === 'SSH_HOST_KEY_REVOKED';
  if (!isKey && code !== 'SSH_AUTH_FAILED') {
    add('connect', failed(error, `Check that \`ssh ${alias}\` works from the machine running Catalyst.`));
    return undefined;
  }
  add('connect', { status: 'ok', detail: 'reached' });
  if (code === 'SSH_HOST_KEY_UNKNOWN') {
    const keyType = typeof details['keyType'] === 'string' ? details['keyType'] : 'ssh-ed25519';
    const file = hostKeyFileOf(keyType);
    add(
      'host-key',
      failed(
        error,
        `Compare the fingerprint with the VM’s own (ssh-keygen -lf ${file} on its console), then confirm it.`,
      ),
    );
    return presentedKeyOf(details);
  }
  if (isKey) {
    add(
      'host-key',
      failed(
        error,
        'Find out why the key changed before you connect; remove the old line from known_hosts once you know.',
      ),
    );
    return undefined;
  }
  add('host-key', { status: 'ok', detail: 'the host key is known' });
  add(
    'auth',
    failed(
      error,
      `Add your public key to the VM (ssh-copy-id ${alias}) or load it into your ssh-agent (ssh-add).`,
    ),
  );
  return undefined;
}

function presentedKeyOf(details: Readonly<Record<string, unknown>>): HostCheckResult['presentedKey'] {
  const { publicKey, presented, keyType, knownHostsName, host } = details;
  if (typeof publicKey !== 'string' || typeof presented !== 'string' || typeof knownHostsName !== 'string')
    return undefined;
  return {
    publicKey,
    key: {
      fingerprint: presented,
      keyType: typeof keyType === 'string' ? keyType : 'unknown',
      knownHostsName,
      hop: typeof host === 'string' ? host : '',
    },
  };
}

function failed(error: unknown, fix: string): Omit<HostCheckStep, 'id'> {
  return {
    status: 'failed',
    detail: isCatalystError(error) ? error.message : messageOf(error),
    fix,
  };
}

function describeRoute(route: {
  target: string;
  jumps: readonly string[];
  proxyCommand?: string | undefined;
}): string {
  const via = [
    ...(route.proxyCommand === undefined ? [] : [`the ProxyCommand \`${route.proxyCommand}\``]),
    ...route.jumps,
  ];
  return via.length === 0 ? route.target : `${route.target} through ${via.join(', then ')}`;
}

/** What to type after `ssh` to reach the host as Catalyst does: the alias, or `-p port user@host` for a typed one. */
function sshArgumentsOf(entry: HostEntry): string {
  if (entry.kind !== 'ssh' || entry.connect.via !== 'ssh-config') return entry.name;
  const { alias, user, port } = entry.connect;
  return `${port === undefined ? '' : `-p ${String(port)} `}${user === undefined ? '' : `${user}@`}${alias}`;
}

const ORDER: readonly HostCheckStepId[] = HostCheckStepIdSchema.options;

function finish(
  entry: HostEntry,
  steps: HostCheckStep[],
  ignored: readonly string[],
  presentedKey?: HostCheckResult['presentedKey'],
): HostCheckResult {
  const done = new Set(steps.map((step) => step.id));
  const skipped = ORDER.filter((id) => !done.has(id)).map((id): HostCheckStep => ({
    id,
    status: 'skipped',
    detail: 'not checked: an earlier step failed',
  }));
  const all = [...steps, ...skipped];
  const view: HostCheckView = {
    name: entry.name,
    isReady: all.every((step) => step.status === 'ok' || step.status === 'warning'),
    steps: all,
    ...(presentedKey === undefined ? {} : { unknownHostKey: presentedKey.key }),
    ignored: [...ignored],
    checkedAt: new Date().toISOString(),
  };
  return presentedKey === undefined ? { view } : { view, presentedKey };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
