import { posix } from 'node:path';
import { VM_MARKERS } from '../../core/vm-markers.ts';
import { VM_SCRIPTS } from '../../core/vm-scripts.generated.ts';
import { NO_GIT_WARNING, type Preflight } from '../host.ts';
import { describeOutcome, parseProbeLines, runProbe, type StartRun } from './ssh-probe.ts';

/**
 * What the VM offers a run (ssh-field-notes.md §9): where claude is — the configured path, then `command -v`
 * with sshd's plain PATH, then where installers put it, then the PATH of the user's login+interactive shell —
 * its version, and whether the run wrapper's tools are there. sshd runs commands in a non-login shell, so
 * ~/.profile and the end of ~/.bashrc (nvm, npm prefix) are not applied: hence the search.
 */

export interface SshPreflightOptions {
  startRun: StartRun;
  claudePath?: string;
  timeoutMs: number;
}

export interface SshPreflightResult {
  preflight: Preflight;
  /** False when the VM could not be asked at all (no connection): such a result is not worth caching. */
  isConclusive: boolean;
}

/**
 * The survey (packages/backend/vm/preflight-survey.sh: `@@` lines) with the configured claude path, or '' for none,
 * as its argument; the job's argv, so the run wrapper runs it.
 */
function surveyArgv(claudePath: string | undefined): string[] {
  return ['/bin/sh', '-c', VM_SCRIPTS['preflight-survey'], 'catalyst-preflight', claudePath ?? ''];
}

/** packages/backend/vm/login-path.sh: `@@CMD=` where the login+interactive shell finds claude. */
const LOGIN_PATH_ARGV = ['/bin/sh', '-c', VM_SCRIPTS['login-path'], 'catalyst-login-path'];

type Found = Pick<Preflight, 'claudePath' | 'foundVia'> & { problem?: string };

export async function runSshPreflight(options: SshPreflightOptions): Promise<SshPreflightResult> {
  const survey = await runProbe(
    options.startRun,
    { argv: surveyArgv(options.claudePath) },
    options.timeoutMs,
  );
  if (survey.outcome.kind !== 'exited' || survey.outcome.code !== 0) {
    const problem = `the VM could not run the preflight probe: ${describeOutcome(survey.outcome)}`;
    return { preflight: { path: '', canRunWrapper: false, problems: [problem] }, isConclusive: false };
  }
  const lines = parseProbeLines(survey.stdout);
  const path = lines.get(VM_MARKERS.path)?.[0] ?? '';
  const found = await findClaude(options, lines);
  const version =
    found.claudePath === undefined ? undefined : await readVersion(options, found.claudePath, path);
  const missing = lines.get(VM_MARKERS.missing) ?? [];
  const problems = [
    ...(found.problem === undefined ? [] : [found.problem]),
    ...(missing.length === 0 ? [] : [`the run wrapper needs ${missing.join(', ')}, which is missing`]),
    ...(found.claudePath !== undefined && version === undefined
      ? [`${found.claudePath} --version did not answer`]
      : []),
  ];
  const preflight: Preflight = {
    ...(found.claudePath === undefined ? {} : { claudePath: found.claudePath, foundVia: found.foundVia }),
    ...(version === undefined ? {} : { version }),
    path,
    canRunWrapper: missing.length === 0,
    problems,
    ...(lines.has(VM_MARKERS.noGit) ? { warnings: [NO_GIT_WARNING] } : {}),
  };
  return { preflight, isConclusive: true };
}

async function findClaude(options: SshPreflightOptions, lines: Map<string, string[]>): Promise<Found> {
  if (options.claudePath !== undefined) {
    if (lines.has(VM_MARKERS.config)) return { claudePath: options.claudePath, foundVia: 'config' };
    return {
      problem: `the configured claude path ${options.claudePath} is not an executable file on the VM`,
    };
  }
  const onPath = lines.get(VM_MARKERS.cmd)?.find((candidate) => candidate.startsWith('/'));
  if (onPath !== undefined) return { claudePath: onPath, foundVia: 'path' };
  const newestNvm = (lines.get(VM_MARKERS.nvm) ?? []).sort((a, b) =>
    b.localeCompare(a, 'en', { numeric: true }),
  )[0];
  const known = lines.get(VM_MARKERS.known)?.[0] ?? newestNvm;
  if (known !== undefined) return { claudePath: known, foundVia: 'known-location' };
  const shell = lines.get(VM_MARKERS.shell)?.[0] ?? '';
  if (shell !== '') {
    const login = await runProbe(options.startRun, { argv: LOGIN_PATH_ARGV }, options.timeoutMs);
    const viaLogin = parseProbeLines(login.stdout)
      .get(VM_MARKERS.cmd)
      ?.find((candidate) => candidate.startsWith('/'));
    if (viaLogin !== undefined) return { claudePath: viaLogin, foundVia: 'login-shell' };
  }
  return {
    problem: 'claude was not found on PATH, in the usual install locations, or on the login shell PATH',
  };
}

/** With claude's directory first on PATH: the npm build is `#!/usr/bin/env node`, and nvm's node sits beside it. */
async function readVersion(
  options: SshPreflightOptions,
  claudePath: string,
  path: string,
): Promise<string | undefined> {
  const env = { PATH: path === '' ? posix.dirname(claudePath) : `${posix.dirname(claudePath)}:${path}` };
  const result = await runProbe(
    options.startRun,
    { argv: [claudePath, '--version'], env },
    options.timeoutMs,
  );
  const version = result.stdout.trim().split('\n')[0];
  const isOk = result.outcome.kind === 'exited' && result.outcome.code === 0;
  return isOk && version !== undefined && version !== '' ? version : undefined;
}
