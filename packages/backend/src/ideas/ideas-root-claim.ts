import { posix } from 'node:path';
import { CatalystError } from '../core/catalyst-error.ts';
import { describeIdeasRootProblem, resolvedIdeasRootProblem } from '../core/ideas-root-rules.ts';
import { VM_SCRIPTS } from '../core/vm-scripts.generated.ts';
import { commandFailure, runHostCommand } from '../host/host-command.ts';
import type { Host } from '../host/host.ts';

/**
 * Makes sure a host's ideas root is Catalyst's before anything uses it (issue 39, item 3): not the home nor above it
 * (core/ideas-root-rules.ts), and missing, empty, marked, or holding only ideas (vm/claim-ideas-root.sh, which
 * marks it). Only then may it be made private and its .trash emptied (host-sweep.ts). CONFIG_INVALID, naming the
 * host and the folder, otherwise.
 */
export const CLAIM_IDEAS_ROOT_SCRIPT = VM_SCRIPTS['claim-ideas-root'];

/** The exit status of the script for a folder that is not Catalyst's. */
const NOT_OURS = 3;

/** The root (`~`, `~/…` or absolute) made absolute on the host, once claimed. */
export async function claimIdeasRoot(host: Host, configured: string): Promise<string> {
  const home = await host.homeDir();
  const root = configured === '~' ? home : configured.replace(/^~\//, `${home}/`);
  const problem = resolvedIdeasRootProblem(root, home);
  if (problem !== undefined) throw refusal(host, configured, problem);
  const result = await runHostCommand(host, {
    argv: ['/bin/sh', '-c', CLAIM_IDEAS_ROOT_SCRIPT, 'catalyst-claim', root],
    cwd: '/',
    timeoutMs: 30_000,
    maxStdoutBytes: 4096,
  });
  const { outcome } = result;
  if (outcome.kind === 'exited' && outcome.code === 0) return posix.normalize(root);
  if (outcome.kind === 'exited' && outcome.code === NOT_OURS) {
    const why = result.stderrTail.trim().split('\n').at(-1) ?? 'is not a folder Catalyst made';
    throw refusal(host, configured, why);
  }
  throw commandFailure(`checking the ideas folder ${root}`, result, 'FILE_ERROR');
}

function refusal(host: Host, root: string, problem: string): CatalystError {
  return new CatalystError('CONFIG_INVALID', `On ${host.label}: ${describeIdeasRootProblem(root, problem)}`, {
    details: { ideasRoot: root },
  });
}
