import type { Logger } from 'pino';
import type { LiveFrame, RelayEvent, RelayEventDraft, RunMode } from '@catalyst/protocol';
import type { RunEnding } from './core/run-ending.ts';
import type { RunLifecycleOptions } from './core/run-lifecycle.ts';
import type { AskPerson } from './core/control-decision.ts';
import type { Host } from '../host/host.ts';
import type { AutoAnswerSetup } from './question-auto-answer.ts';
import type { SessionProcess } from './session-process.ts';
import type { ResumePoint } from './resume-point.ts';

/** A claude process kept between turns (issue 11): its mode, and its cumulative cost so far. */
export interface WarmProcess {
  process: SessionProcess;
  mode: RunMode;
  costBaseUsd: number;
}

/** questionPolicy `auto` / `human_then_auto`: the driver adds how to reach the model and how to give up. */
export type AutoAnswerOptions = Omit<AutoAnswerSetup, 'reply' | 'fail' | 'warn'> & { timeoutMs: number };

/** What a run's driver (run-driver.ts) is given. */
export interface RunDriverOptions {
  host: Host;
  ideaId: string;
  runId: string;
  mode: RunMode;
  message: string;
  /** Read by Claude before the message, not shown in the history (run-commands.ts). */
  preface?: string | undefined;
  /** The idea's project directory on the host: the CLI's cwd for every run (sessions are per cwd). */
  cwd: string;
  claudePath: string;
  /** Exported in the run (not secrets: the wrapper script is on a command line). */
  env?: Readonly<Record<string, string>>;
  sessionId?: string;
  /**
   * The recap a new session starts with when the CLI no longer has `sessionId` (runs/core/lost-session.ts): the idea
   * and its conversation before this run, from Catalyst's own history. Asked for only then.
   */
  recap: () => Promise<string>;
  inactivityTimeoutMs: number;
  maxDurationMs: number;
  /** How long a turn goes on in its session with no Catalyst attached (CATALYST_DETACHED_LIMIT_MS). */
  detachedLimitMs?: number;
  /** How long its session waits for a heartbeat before it counts its Catalyst gone (CATALYST_LEASE_MS). */
  leaseMs?: number;
  /** How long a session waits for its next turn before it ends (CATALYST_WARM_IDLE_MS). */
  warmIdleMs?: number;
  /** A warm process of the idea to run this turn in (warm-sessions.ts), instead of starting one. */
  warm?: WarmProcess;
  /** The turn ended and its process stays for the next one (called before `onFinish`). */
  onKeep?: (kept: WarmProcess) => void;
  /**
   * Take up a run an earlier Catalyst left going in its session on the host (resume-point.ts), instead of starting
   * one: its output is read again from the turn's start, and only what the history does not hold yet is emitted.
   */
  resume?: ResumePoint;
  /** Which prompts wait for a person (questions, permissions); see runs/core/control-decision.ts. */
  askPerson?: AskPerson;
  humanAnswerLimitMs?: number | undefined;
  autoAnswer?: AutoAnswerOptions | undefined;
  emit: (draft: RelayEventDraft) => RelayEvent;
  /** Live-only frames (streaming text): to the idea's subscribers of this moment, never into the history. */
  relayLive: (frame: LiveFrame) => void;
  onSession: (sessionId: string) => Promise<void>;
  /**
   * The run's bookkeeping (totals, status, releasing the idea), done before `run:ended` is relayed: a client that
   * starts the next run on seeing it must find the idea free and its meta.json up to date.
   */
  onFinish: (ending: RunEnding) => Promise<void>;
  logger: Logger;
}

/** What the run's pure lifecycle (runs/core/run-lifecycle.ts) is told of it. */
export function lifecycleOptionsOf(options: RunDriverOptions): RunLifecycleOptions {
  return {
    ideaId: options.ideaId,
    runId: options.runId,
    mode: options.mode,
    prompt: options.message,
    ...(options.preface === undefined ? {} : { preface: options.preface }),
    inactivityTimeoutMs: options.inactivityTimeoutMs,
    maxDurationMs: options.maxDurationMs,
    ...(options.resume === undefined ? {} : { runStartedAtMs: options.resume.startedAtMs }),
    ...(options.askPerson === undefined ? {} : { askPerson: options.askPerson }),
    ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
    // Every turn may leave its process warm for the next; a stop ends the process as before.
    warm: { costBaseUsd: options.warm?.costBaseUsd ?? 0 },
  };
}
