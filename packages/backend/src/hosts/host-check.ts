import { posix } from 'node:path';
import { z } from 'zod';
import {
  HostCheckStepIdSchema,
  type HostCheckStep,
  type HostCheckStepId,
  type HostCheckView,
} from '@catalyst/protocol';
import type { HostEntry } from '../host/host-entry.ts';
import type { Host, Preflight } from '../host/host.ts';
import { runHostCommand } from '../host/host-command.ts';
import { hostCheckTextsOf, type HostCheckTexts } from './host-check-texts.ts';
import { connectFailure, failed } from './host-check-connect.ts';
import type { AddStep, HostCheckResult } from './host-check-result.ts';

export type { HostCheckResult } from './host-check-result.ts';

/**
 * A host's check, step by step (issue 28), on a connection of its own: resolve (the ssh_config route), connect
 * (each jump), host key, authentication, claude found, logged in (`claude auth status --json`, no model call),
 * the tools runs need, free space. A failed step says what to do next and skips the rest.
 */

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
  addReached(entry, { host, home, add });
  const texts = hostCheckTextsOf(entry, alias);
  try {
    await checkClaude({ entry, host, home, texts, add });
  } catch (error) {
    // The step that was running when the host stopped answering.
    const done = new Set(steps.map((step) => step.id));
    const running = ORDER.find((id) => !done.has(id)) ?? 'disk';
    add(running, failed(error, texts.lookAtHost));
  }
  return finish(entry, steps, ignored);
}

/** Connect, host key and authentication once the host answered; this machine needs none of SSH's. */
function addReached(entry: HostEntry, reached: { host: Host; home: string; add: AddStep }): void {
  const { host, home, add } = reached;
  if (entry.kind === 'local') {
    add('connect', { status: 'ok', detail: 'this machine: no connection needed' });
    add('host-key', { status: 'ok', detail: 'this machine: no host key needed' });
    add('auth', { status: 'ok', detail: `as the user Catalyst runs as; home ${home}` });
    return;
  }
  add('connect', { status: 'ok', detail: `reached ${host.label}` });
  add('host-key', { status: 'ok', detail: 'the host key is known' });
  const authenticatedWith = host.authenticatedWith?.();
  add('auth', {
    status: 'ok',
    detail: `${authenticatedWith === undefined ? 'logged in' : `logged in with ${authenticatedWith}`}; home ${home}`,
  });
}

async function checkClaude(context: {
  entry: HostEntry;
  host: Host;
  home: string;
  texts: HostCheckTexts;
  add: AddStep;
}): Promise<void> {
  const { entry, host, home, texts, add } = context;
  const preflight = await host.preflight();
  const claudePath = entry.claudePath ?? preflight.claudePath;
  if (claudePath === undefined) {
    add('claude', {
      status: 'failed',
      detail: preflight.problems.join('; ') || 'claude is not on the PATH nor in the usual places',
      fix: texts.installClaude,
    });
    return;
  }
  add('claude', {
    status: 'ok',
    detail: `claude ${preflight.version ?? '(version unknown)'} at ${claudePath}`,
  });
  const path = `${posix.dirname(claudePath)}:${preflight.path}`;
  add('login', await checkLogin(host, { claudePath, path, home, texts }));
  add('tools', toolsStep(preflight, texts));
  add('disk', await checkDisk(host, { root: entry.ideasRoot, home, texts }));
}

async function checkLogin(
  host: Host,
  where: { claudePath: string; path: string; home: string; texts: HostCheckTexts },
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
      fix: where.texts.updateClaude,
    };
  }
  if (status.data.loggedIn)
    return { status: 'ok', detail: `logged in (${status.data.authMethod ?? 'unknown method'})` };
  return {
    status: 'failed',
    detail: where.texts.notLoggedIn,
    fix: where.texts.logIn,
  };
}

function toolsStep(preflight: Preflight, texts: HostCheckTexts): Omit<HostCheckStep, 'id'> {
  if (!preflight.canRunWrapper) {
    return {
      status: 'failed',
      detail: preflight.problems.join('; '),
      fix: texts.installTools,
    };
  }
  const warnings = preflight.warnings ?? [];
  if (warnings.length > 0) return { status: 'warning', detail: warnings.join('; '), fix: texts.installGit };
  return { status: 'ok', detail: 'git, flock, tail, setsid and the rest are there' };
}

async function checkDisk(
  host: Host,
  where: { root: string; home: string; texts: HostCheckTexts },
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
  if (available < NO_SPACE_KB) return { status: 'failed', detail: text, fix: where.texts.freeSpace };
  if (available < LOW_SPACE_KB) return { status: 'warning', detail: text, fix: where.texts.freeSpaceSoon };
  return { status: 'ok', detail: text };
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
