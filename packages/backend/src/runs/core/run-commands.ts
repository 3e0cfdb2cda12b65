import type {
  CanUseToolRequest,
  ErrorCode,
  CliMessage,
  HostControlResponse,
  IdeaId,
  LineTooLong,
  LiveFrame,
  RelayEventDraft,
  RunMode,
  UnparsableLine,
} from '@catalyst/protocol';
import type { RunOutcome } from '../../core/run-outcome.ts';
import type { AskPerson, PromptKind } from './control-decision.ts';
import type { RunEnding } from './run-ending.ts';
import { DEFAULT_MAX_RUN_MS } from '../../core/run-wrapper.ts';

/**
 * What goes into a run's state machine (run-lifecycle.ts) and what comes out: the contract with the run manager,
 * which feeds it what happened and carries out the commands it returns, in order. The machine owns no timer and
 * reads no clock: every input carries `now`, and timers are commands.
 *
 * Driver contract:
 * - `set_timer` (re)arms the named one-shot timer, replacing any armed one of that name; `clear_timer` disarms it.
 *   A fire that raced a clear is ignored here, so the driver need not guard against it.
 * - `write_line`: `line` is one JSON object (no newline) for RunHandle.writeLine. A rejection after the process
 *   ended (RUN_INPUT_CLOSED) is harmless: log it and go on. `end_input` → endInput(). `interrupt_process` → SIGINT
 *   to the CLI through the wrapper. `kill_run` → RunHandle.cancel().
 * - `emit`: append the draft to the idea's history. This machine emits `run:started` first and `run:ended` last,
 *   exactly once each: it alone decides how the run ended, so it alone announces it. `finish` follows `run:ended`
 *   and is the driver's cue to tidy up (meta.json, status, releasing the run); the driver emits neither event.
 * - `relay_live`: send the frame to the idea's subscribers of this moment, and nowhere else (no seq, no history),
 *   in order with the `emit`s around it (live-text.ts).
 * - `session_started`: save the session id to meta.json at once, so a crash mid-run still resumes (§3.1, §6).
 * - `log`: a line for the server log (e.g. a question answered on nobody's behalf); never shown to the person.
 * - `ask`: a `can_use_tool` request now waits for a person (a question or a permission). Feed the answer back as
 *   `prompt_answered`, whenever it comes; one for a prompt that is no longer pending is ignored.
 * - `close_prompts`: the prompts named stopped waiting (the run stopped, or the CLI withdrew its request, §8.4):
 *   settle them without writing anything (this machine already did what the CLI needs).
 * - `host_outcome` must be fed once per process, after its stdout and stderr were read to their end; when
 *   startRun itself fails, feed `{ kind: 'start_failed', … }` without `started`. Every run then ends in exactly one
 *   `finish`.
 * - `restart_without_session` (after a `host_outcome`): the session being resumed is gone from the host
 *   (lost-session.ts). Start claude again in the same cwd without `--resume`, then feed `restarted` with the recap
 *   of the conversation (or `host_outcome` with `start_failed` if it cannot start), then that process's
 *   `host_outcome` as for the first. At most once per run.
 */

export type TimerName =
  'inactivity' | 'max_duration' | 'stop_sigint' | 'stop_kill' | 'exit_after_result' | 'stop_give_up';

export type RunInput =
  | { type: 'started'; now: number }
  | { type: 'message'; message: CliMessage; now: number }
  | { type: 'stream_error'; event: UnparsableLine | LineTooLong; now: number }
  | { type: 'stderr'; text: string; now: number }
  | { type: 'cancel_requested'; now: number }
  /** Catalyst cannot go on (run-ending.ts): stopped like a cancel, ended `failed` with this error. */
  | { type: 'fail_requested'; code: ErrorCode; message: string; now: number }
  | { type: 'timer_fired'; name: TimerName; now: number }
  /** A question or permission now waits on a person: the inactivity timeout pauses until every one is settled. */
  | { type: 'pending_started'; id: string; now: number }
  | { type: 'pending_finished'; id: string; now: number }
  | { type: 'prompt_answered'; id: string; response: HostControlResponse; now: number }
  | { type: 'host_outcome'; outcome: RunOutcome; now: number }
  /** The new process that `restart_without_session` asked for runs; `recap` goes before the person's message. */
  | { type: 'restarted'; recap: string; now: number };

export type PromptCloseReason = 'cancelled' | 'timed_out' | 'withdrawn';

export type RunCommand =
  | { type: 'write_line'; line: string }
  | { type: 'end_input' }
  | { type: 'interrupt_process' }
  | { type: 'kill_run' }
  /** The host did not confirm the stop in time: let the process go (the run ends without its outcome). */
  | { type: 'abandon_process' }
  | { type: 'set_timer'; name: TimerName; ms: number }
  | { type: 'clear_timer'; name: TimerName }
  | { type: 'emit'; event: RelayEventDraft }
  | { type: 'relay_live'; frame: LiveFrame }
  | { type: 'session_started'; sessionId: string }
  | { type: 'log'; level: 'info' | 'warn'; message: string }
  | { type: 'ask'; prompt: PromptKind; requestId: string; request: CanUseToolRequest }
  | { type: 'close_prompts'; ids: string[]; reason: PromptCloseReason }
  | { type: 'restart_without_session' }
  /**
   * A warm turn (`warm` below) ended with its result and nothing stopped it: the process stays, idle, for the next
   * turn, whose `warm.costBaseUsd` is this `costBaseUsd` (the process's cumulative cost so far). Comes just before
   * `finish`; without it, `finish` means the process is gone.
   */
  | { type: 'keep_process'; costBaseUsd: number }
  | ({ type: 'finish' } & RunEnding);

export interface RunLifecycleOptions {
  ideaId: IdeaId;
  runId: string;
  mode: RunMode;
  /** The person's message: written as the run's one user message once the process has started (§7.1). */
  prompt: string;
  /**
   * A line Claude reads before the message, which the history's `run:started` does not show (issue 13: the project
   * was restored to a checkpoint since the last run).
   */
  preface?: string;
  /** Which `can_use_tool` requests wait for a person; none by default (answered at once, tool-policy.ts). */
  askPerson?: AskPerson;
  /** The session being resumed; `session_started` is sent only for a different id. */
  sessionId?: string;
  /**
   * CLAUDE_TIMEOUT_MS: the longest silence from Claude while nobody is being asked anything. Every stdout line
   * (parsed or not) and every stderr text counts as output.
   */
  inactivityTimeoutMs?: number;
  /** The longest a run may last, questions included. Keep the wrapper's maxRuntimeMs above it. */
  maxDurationMs?: number;
  /**
   * When the run began, for a run taken up after a restart (epoch ms, the clock of `now`): its maximum duration
   * counts from here, not from the take-up.
   */
  runStartedAtMs?: number;
  /** After the interrupt request, before SIGINT. */
  interruptGraceMs?: number;
  /** After SIGINT, before the host's cancel. */
  sigintGraceMs?: number;
  /** After the result, before the host's cancel (the CLI can hang after its result). */
  exitGraceMs?: number;
  /**
   * After the host's cancel, before the run ends without the host's word (issue 25, item 1: a cancel always ends a
   * run, whatever the VM does). The process is let go (`abandon_process`); its session's own limits end it there.
   */
  killGraceMs?: number;
  /**
   * A turn in a process that lives on (issue 11): the run ends at its `result`, the process stays for the next
   * turn (`keep_process`), and the turn's cost is what the process's cumulative `total_cost_usd` grew by since
   * `costBaseUsd` (claude-cli-protocol.md §4: cumulative over the process). A stop (cancel, timeout, failure)
   * still ends the process as in a one-turn run.
   */
  warm?: { costBaseUsd: number };
}

export const DEFAULT_INACTIVITY_TIMEOUT_MS = 600_000;
export const DEFAULT_INTERRUPT_GRACE_MS = 5_000;
export const DEFAULT_SIGINT_GRACE_MS = 5_000;
export const DEFAULT_EXIT_GRACE_MS = 10_000;
/** Above a session's own stop (its grace period, then KILL, then its status) over a slow connection. */
export const DEFAULT_KILL_GRACE_MS = 20_000;

export type RunTimings = Required<Pick<RunLifecycleOptions, TimingName>>;
type TimingName =
  | 'inactivityTimeoutMs'
  | 'maxDurationMs'
  | 'interruptGraceMs'
  | 'sigintGraceMs'
  | 'exitGraceMs'
  | 'killGraceMs';

export function resolveTimings(options: RunLifecycleOptions): RunTimings {
  return {
    inactivityTimeoutMs: options.inactivityTimeoutMs ?? DEFAULT_INACTIVITY_TIMEOUT_MS,
    maxDurationMs: options.maxDurationMs ?? DEFAULT_MAX_RUN_MS,
    interruptGraceMs: options.interruptGraceMs ?? DEFAULT_INTERRUPT_GRACE_MS,
    sigintGraceMs: options.sigintGraceMs ?? DEFAULT_SIGINT_GRACE_MS,
    exitGraceMs: options.exitGraceMs ?? DEFAULT_EXIT_GRACE_MS,
    killGraceMs: options.killGraceMs ?? DEFAULT_KILL_GRACE_MS,
  };
}

export function emit(event: RelayEventDraft): RunCommand {
  return { type: 'emit', event };
}

export function log(level: 'info' | 'warn', message: string): RunCommand {
  return { type: 'log', level, message };
}

export function relayLive(frame: LiveFrame): RunCommand {
  return { type: 'relay_live', frame };
}

/** When a run taken up after a restart began (its `run:started`); undefined for a run this lifecycle began. */
export function runStartedAtOf(options: RunLifecycleOptions): number | undefined {
  const began = options.runStartedAtMs;
  return began === undefined || !Number.isFinite(began) ? undefined : began;
}

/** What is left of the run's longest time at `now` (a run taken up counts from its own start). */
export function maxDurationLeft(options: RunLifecycleOptions, timing: RunTimings, now: number): number {
  const began = runStartedAtOf(options);
  const elapsed = began === undefined ? 0 : Math.max(0, now - began);
  return Math.max(0, timing.maxDurationMs - elapsed);
}
