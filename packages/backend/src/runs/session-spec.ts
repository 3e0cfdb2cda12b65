import { randomBytes } from 'node:crypto';
import type { RunMode } from '@catalyst/protocol';
import { buildClaudeCommand } from '../core/claude-command.ts';
import type { AskPerson } from './core/control-decision.ts';
import { commandOptionsFor } from './core/tool-policy.ts';
import type { RunSpec } from '../host/host.ts';

/**
 * The claude command of an idea's session on its host (same flags for a run's own process and a pre-warmed one),
 * and what a warm process must share with a turn to run it (warm-sessions.ts).
 */

export interface SessionSpecInput {
  mode: RunMode;
  /** The idea's project directory on the host: the CLI's cwd for every run (sessions are per cwd). */
  cwd: string;
  claudePath: string;
  /** Exported in the run (not secrets: the wrapper script is on a command line). */
  env?: Readonly<Record<string, string>> | undefined;
  askPerson?: AskPerson | undefined;
  maxDurationMs: number;
  detachedLimitMs?: number | undefined;
  leaseMs?: number | undefined;
  warmIdleMs?: number | undefined;
  /**
   * What is left to spend when the process starts (the idea's budget, an autopilot's cap), and which budget that is
   * (`key`): the CLI gets the rest as `--max-budget-usd`, which bounds the process's cumulative cost, so it holds for
   * every turn the process takes under the same budget.
   */
  budget?: { key: string; remainingUsd: number } | undefined;
}

/**
 * A warm session lives across turns; this bounds its whole life on the host (each turn has its own limit,
 * CATALYST_MAX_RUN_MS). warm-sessions.ts does not start a turn in a session too old for one more.
 */
export const SESSION_LIFETIME_MS = 24 * 3_600_000;

export function sessionSpec(input: SessionSpecInput, resume: string | undefined): RunSpec {
  const {
    mode,
    cwd,
    claudePath,
    env,
    askPerson,
    maxDurationMs,
    detachedLimitMs,
    leaseMs,
    warmIdleMs,
    budget,
  } = input;
  const command = buildClaudeCommand({
    claudePath,
    cwd,
    ...(env === undefined ? {} : { env: { ...env } }),
    ...commandOptionsFor(mode, { askPermissions: askPerson?.permissions }),
    // Text as the model writes it, relayed live (runs/core/live-text.ts).
    includePartialMessages: true,
    ...(resume === undefined ? {} : { resume }),
    ...(budget === undefined ? {} : { maxBudgetUsd: budget.remainingUsd }),
  });
  const limits = {
    // The session's own backstop, past the lifecycle's limit, which stops a turn cleanly first.
    maxRuntimeMs: Math.max(maxDurationMs + 60_000, SESSION_LIFETIME_MS),
    ...(detachedLimitMs === undefined ? {} : { detachedMs: detachedLimitMs }),
    ...(leaseMs === undefined ? {} : { leaseMs }),
    ...(warmIdleMs === undefined ? {} : { warmIdleMs }),
  };
  return { argv: command.argv, cwd: command.cwd, env: command.env, limits };
}

/**
 * What a warm process and a turn must agree on for the turn to run in it: the same command apart from which
 * session it resumed (after its first turn the process is in the idea's session whatever it resumed) and what was
 * left of the budget when it started (its cap counts from then), but under the same budget.
 */
export function warmKeyOf(input: SessionSpecInput): string {
  const { argv, cwd, env } = sessionSpec({ ...input, budget: undefined }, undefined);
  return JSON.stringify({ argv, cwd, env, budget: input.budget?.key });
}

/** A session on a host is named after its idea, so a restarted Catalyst knows whose it is (job-owners.ts). */
export function newSessionId(ideaId: string): string {
  return `${ideaId}-${randomBytes(8).toString('hex')}`;
}
