import {
  createInterruptRequest,
  createUserMessage,
  type CliMessage,
  type CliResultMessage,
  type CommandResult,
  type UnknownCliMessage,
} from '@catalyst/protocol';
import type { RunOutcome } from '../../core/run-outcome.ts';
import { turnResult } from '../../core/command-result.ts';
import { LiveText } from './live-text.ts';
import { toErrorDraft, toRelayDrafts, type RelayContext } from './relay-mapping.ts';
import { RunStderr } from './run-stderr.ts';
import {
  emit,
  log,
  maxDurationLeft,
  relayLive,
  resolveTimings,
  runStartedAtOf,
  type RunCommand,
  type RunInput,
  type RunLifecycleOptions,
  type RunTimings,
  type TimerName,
} from './run-commands.ts';
import {
  decideEnding,
  describeInactivityTimeout,
  describeMaxDurationTimeout,
  type StopReason,
} from './run-ending.ts';
import { LifecyclePrompts } from './run-lifecycle-prompts.ts';
import { SessionRecovery, withRecap } from './lost-session.ts';
import { answerUnreadableControlRequest } from './tool-policy.ts';
import { isCommandLifecycleLine, isResultOfMessage, messageUuidOf } from './turn-of-message.ts';

export * from './run-commands.ts';

/**
 * The pure state machine of ONE run (the contract with its driver is in run-commands.ts). A run is one turn: the
 * prompt goes in as the one user message; the `result` ends the turn (§4), then stdin closes and the CLI exits.
 * Stopping (cancel, timeouts) follows §9's recipe: interrupt, then SIGINT, then the host's cancel.
 */

/** A result of another turn (the CLI's own, or another message's): the turn goes on to its own result. */
const otherTurnLog = log(
  'info',
  'a result of another turn (one the CLI ran by itself for a background task, or another message’s): not this turn’s',
);

type Phase = 'created' | 'running' | 'finished';

export class RunLifecycle {
  readonly #options: RunLifecycleOptions;
  readonly #timing: RunTimings;
  readonly #context: RelayContext;
  readonly #timers = new Set<TimerName>();
  readonly #pending = new Set<string>();
  readonly #prompts: LifecyclePrompts;
  readonly #liveText: LiveText;
  /** Sent with the message, so that the turn's own result is told for certain (turn-of-message.ts). */
  readonly #messageUuid: string;
  #phase: Phase = 'created';
  #hasAnnouncedStart = false;
  #startedAt: number | undefined;
  #lastActivityAt = 0;
  #sessionId: string | undefined;
  #stop: StopReason | undefined;
  #result: CommandResult | undefined;
  #isInputEnded = false;
  /** A resumed session the host no longer has: the run goes on in a new one (lost-session.ts). */
  readonly #recovery: SessionRecovery;
  readonly #stderr: RunStderr;

  constructor(options: RunLifecycleOptions) {
    this.#options = options;
    this.#timing = resolveTimings(options);
    this.#context = { ideaId: options.ideaId, runId: options.runId };
    this.#sessionId = options.sessionId;
    this.#messageUuid = messageUuidOf(options.runId);
    this.#recovery = new SessionRecovery(options.sessionId);
    this.#stderr = new RunStderr(this.#context, this.#recovery);
    this.#liveText = new LiveText(this.#context);
    this.#prompts = new LifecyclePrompts({
      write: (line) => this.#write(line),
      hold: (id) => this.#hold(id),
      release: (id, now) => this.#onPendingFinished(id, now),
      drop: (id) => this.#pending.delete(id),
    });
  }

  /** The uuid the message goes to Claude with. */
  get messageUuid(): string {
    return this.#messageUuid;
  }

  get isFinished(): boolean {
    return this.#phase === 'finished';
  }

  /** The commands for one input, to carry out in order. Everything after `finish` is ignored. */
  handle(input: RunInput): RunCommand[] {
    if (this.#phase === 'finished') return [];
    const commands = this.#dispatch(input);
    // run:started comes before any other event, even one the driver fed before `started`.
    return commands.some((command) => command.type === 'emit' || command.type === 'relay_live')
      ? [...this.#announceStart(), ...commands]
      : commands;
  }

  #dispatch(input: RunInput): RunCommand[] {
    switch (input.type) {
      case 'started':
        return this.#onStarted(input.now);
      case 'message':
        return this.#onMessage(input.message, input.now);
      case 'stream_error':
        this.#lastActivityAt = input.now;
        return [emit(toErrorDraft(input.event, this.#context))];
      case 'stderr':
        return this.#onStderr(input.text, input.now);
      case 'cancel_requested':
        return this.#beginStop({ outcome: 'cancelled' });
      case 'fail_requested':
        return this.#beginStop({ outcome: 'failed', error: { code: input.code, message: input.message } });
      case 'timer_fired':
        return this.#timers.delete(input.name) ? this.#onTimer(input.name, input.now) : [];
      case 'pending_started':
        return this.#hold(input.id);
      case 'pending_finished':
        return this.#onPendingFinished(input.id, input.now);
      case 'prompt_answered':
        return this.#prompts.onAnswered(input.id, input.response, input.now);
      case 'host_outcome':
        return this.#recovery.isLost && this.#stop === undefined
          ? this.#restartWithoutSession()
          : this.#finish(input.outcome);
      case 'restarted':
        return this.#onRestarted(input.recap, input.now);
    }
  }

  /** The message as Claude reads it: the preface (if any) on a line of its own first. */
  #claudePrompt(): string {
    const { preface, prompt } = this.#options;
    return preface === undefined ? prompt : `${preface}\n\n${prompt}`;
  }

  #onStarted(now: number): RunCommand[] {
    if (this.#phase !== 'created') return [log('warn', 'the run was reported started twice')];
    this.#phase = 'running';
    this.#startedAt = now;
    this.#lastActivityAt = now;
    const announce = this.#announceStart();
    // Cancelled while the process was starting: it has no prompt yet, so there is nothing to interrupt.
    if (this.#stop !== undefined) return [...announce, ...this.#kill()];
    return [
      ...announce,
      this.#write(createUserMessage(this.#claudePrompt(), { uuid: this.#messageUuid })),
      ...(this.#pending.size === 0 ? [this.#setTimer('inactivity', this.#timing.inactivityTimeoutMs)] : []),
      this.#setTimer('max_duration', maxDurationLeft(this.#options, this.#timing, now)),
    ];
  }

  /** Every line counts as activity, a stream_event too: it is what a long streamed answer consists of. */
  #onMessage(message: CliMessage, now: number): RunCommand[] {
    this.#lastActivityAt = now;
    if (isCommandLifecycleLine(message)) return [];
    const live = this.#liveText.framesFor(message).map(relayLive);
    const emits = toRelayDrafts(message, this.#context).map(emit);
    return [...live, ...emits, ...this.#react(message, now)];
  }

  #react(message: CliMessage, now: number): RunCommand[] {
    switch (message.type) {
      case 'system':
        if (message.subtype !== 'init') return [];
        return [
          ...this.#stderr.event(this.#recovery.noteAnswered()),
          ...this.#onSessionId(message.session_id),
        ];
      case 'control_request':
        return this.#prompts.onRequest(message, {
          mode: this.#options.mode,
          askPerson: this.#options.askPerson ?? {},
          isStopping: this.#stop !== undefined,
          isInputEnded: this.#isInputEnded,
        });
      case 'control_cancel_request':
        return this.#prompts.onWithdrawn(message.request_id, now);
      case 'result':
        if (this.#isOtherTurnsResult(message)) return [otherTurnLog];
        // Not the run's result when the resumed session is gone: the run goes on in a new one once this exits.
        if (this.#stop === undefined && this.#recovery.noteResult(message))
          return [log('info', `session ${this.#sessionId ?? ''} is gone from the host; starting a new one`)];
        return this.#onResult(message, now);
      case 'unknown':
        return this.#onUnknown(message, now);
      case 'assistant':
      case 'user':
      case 'stream_event':
      case 'control_response':
      case 'tool_progress':
        return [];
    }
  }

  /** §3.1: init comes every turn; a resumed session keeps its id (§6), so only a new id is worth saving. */
  #onSessionId(sessionId: string): RunCommand[] {
    if (sessionId === this.#sessionId) return [];
    this.#sessionId = sessionId;
    return [{ type: 'session_started', sessionId }];
  }

  /** While stopping, any result ends the run: an interrupt may land in the CLI's own turn. */
  #isOtherTurnsResult(line: unknown): boolean {
    return this.#stop === undefined && !isResultOfMessage(line, this.#messageUuid);
  }

  /** cli-result.ts: an untyped result still ends the turn (as a failure); an untyped control request still waits. */
  #onUnknown(message: UnknownCliMessage, now: number): RunCommand[] {
    if (message.originalType === 'result') {
      return this.#isOtherTurnsResult(message.raw) ? [otherTurnLog] : this.#onResult(message, now);
    }
    const answer = answerUnreadableControlRequest(message);
    return answer === undefined ? [] : this.#prompts.reply(answer);
  }

  /**
   * §4: one result per turn, and a run has one turn. Then stdin closes, and the CLI exits once idle (§7.3); a warm
   * turn ends here instead and leaves the process idle for the next one.
   */
  #onResult(message: CliResultMessage | UnknownCliMessage, now: number): RunCommand[] {
    // A run taken up after a restart began before this lifecycle did (issue 40): its duration counts from then.
    const startedAt = runStartedAtOf(this.#options) ?? this.#startedAt ?? now;
    const warm = this.#options.warm;
    const { parsed, result } = turnResult(message, {
      sessionId: this.#sessionId ?? '',
      startedAt,
      now,
      warm,
    });
    const isFirst = this.#result === undefined;
    this.#result = result;
    const announce = emit({ ...this.#context, type: 'claude:result', result });
    if (!isFirst) return [announce];
    if (warm !== undefined && this.#stop === undefined) {
      const keep: RunCommand = { type: 'keep_process', costBaseUsd: parsed.costUsd };
      return [announce, keep, ...this.#finish({ kind: 'exited', code: 0, signal: null })];
    }
    this.#isInputEnded = true;
    return [
      announce,
      ...(['inactivity', 'max_duration', 'stop_sigint', 'stop_kill', 'stop_give_up'] as const).flatMap(
        (name) => this.#clearTimer(name),
      ),
      { type: 'end_input' },
      this.#setTimer('exit_after_result', this.#timing.exitGraceMs),
    ];
  }

  #onStderr(text: string, now: number): RunCommand[] {
    if (text === '') return [];
    this.#lastActivityAt = now;
    return this.#stderr.take(text, this.#stop !== undefined);
  }

  #onTimer(name: TimerName, now: number): RunCommand[] {
    switch (name) {
      case 'inactivity':
        return this.#onInactivityTimer(now);
      case 'max_duration':
        return this.#beginStop({
          outcome: 'timed_out',
          message: describeMaxDurationTimeout(this.#timing.maxDurationMs),
        });
      case 'stop_sigint':
        return [{ type: 'interrupt_process' }, this.#setTimer('stop_kill', this.#timing.sigintGraceMs)];
      case 'stop_kill':
      case 'exit_after_result':
        return this.#kill();
      case 'stop_give_up':
        // The host never said how the process ended (a VM that stopped answering, a session that cannot be
        // reached): the stop or the result decides the ending, and the process is let go.
        return [
          { type: 'abandon_process' },
          ...this.#finish({
            kind: 'connection_lost',
            message: 'The VM did not confirm that Claude stopped.',
          }),
        ];
    }
  }

  /** Armed for the whole timeout; a line since then moved the deadline, so it is re-armed for what is left. */
  #onInactivityTimer(now: number): RunCommand[] {
    const timeoutMs = this.#timing.inactivityTimeoutMs;
    const silentMs = now - this.#lastActivityAt;
    if (silentMs < timeoutMs) return [this.#setTimer('inactivity', timeoutMs - silentMs)];
    return this.#beginStop({ outcome: 'timed_out', message: describeInactivityTimeout(timeoutMs) });
  }

  #hold(id: string): RunCommand[] {
    this.#pending.add(id);
    return this.#clearTimer('inactivity');
  }

  #onPendingFinished(id: string, now: number): RunCommand[] {
    if (!this.#pending.delete(id) || this.#pending.size > 0 || !this.#isTurnLive()) return [];
    this.#lastActivityAt = now;
    return [this.#setTimer('inactivity', this.#timing.inactivityTimeoutMs)];
  }

  /**
   * §9 "graceful stop recipe": interrupt, and wait for the result (stdin then closes as after any result). If it
   * does not come, SIGINT, then the host's cancel. A stop after the result changes nothing: the turn is over.
   */
  #beginStop(reason: StopReason): RunCommand[] {
    if (this.#stop !== undefined || this.#result !== undefined) return [];
    this.#stop = reason;
    // Not started yet (waiting on a busy host for a channel): nothing runs to stop, so the run ends now; a process
    // that comes up after all is stopped by the driver (issue 25: a cancel is never left waiting on the host).
    if (this.#phase === 'created') return this.#finish({ kind: 'cancelled' });
    if (this.#phase !== 'running') return [];
    return [
      ...this.#prompts.settle(reason.outcome === 'timed_out' ? 'timed_out' : 'cancelled', true),
      ...this.#clearTimer('inactivity'),
      ...this.#clearTimer('max_duration'),
      this.#write(createInterruptRequest(`interrupt-${this.#options.runId}`)),
      this.#setTimer('stop_sigint', this.#timing.interruptGraceMs),
    ];
  }

  #finish(outcome: RunOutcome): RunCommand[] {
    const clears = [
      ...[...this.#timers].flatMap((name) => this.#clearTimer(name)),
      ...this.#prompts.settle('cancelled', false),
    ];
    const facts = { stop: this.#stop, result: this.#result, stderrTail: this.#stderr.tail };
    const ending = decideEnding(facts, outcome);
    this.#phase = 'finished';
    return [
      ...clears,
      ...this.#stderr.event(this.#recovery.releaseStderr()),
      ...this.#liveText.end().map(relayLive),
      emit({ ...this.#context, type: 'run:ended', ...ending }),
      { type: 'finish', ...ending },
    ];
  }

  #restartWithoutSession(): RunCommand[] {
    const previousSessionId = this.#recovery.restart();
    this.#sessionId = undefined;
    this.#stderr.forget();
    return [
      emit({ ...this.#context, type: 'run:session_replaced', previousSessionId }),
      { type: 'restart_without_session' },
    ];
  }

  /** The new session's process runs: the person's message goes in after the recap (a stop meanwhile kills it). */
  #onRestarted(recap: string, now: number): RunCommand[] {
    if (this.#stop !== undefined) return this.#kill();
    this.#lastActivityAt = now;
    const text = withRecap(recap, this.#claudePrompt());
    return [this.#write(createUserMessage(text, { uuid: this.#messageUuid }))];
  }

  /** The host's cancel; if the host never tells how the process ended, the run ends without it (stop_give_up). */
  #kill(): RunCommand[] {
    return [{ type: 'kill_run' }, this.#setTimer('stop_give_up', this.#timing.killGraceMs)];
  }

  #isTurnLive(): boolean {
    return this.#phase === 'running' && this.#stop === undefined && this.#result === undefined;
  }

  #announceStart(): RunCommand[] {
    if (this.#hasAnnouncedStart) return [];
    this.#hasAnnouncedStart = true;
    const { mode, prompt } = this.#options;
    return [emit({ ...this.#context, type: 'run:started', mode, message: prompt })];
  }

  /** After end_input the host rejects writes (RUN_INPUT_CLOSED), and nothing written then could matter. */
  #write(line: object): RunCommand {
    if (this.#isInputEnded) return log('warn', 'a line for Claude was dropped: its input is already closed');
    return { type: 'write_line', line: JSON.stringify(line) };
  }

  #setTimer(name: TimerName, ms: number): RunCommand {
    this.#timers.add(name);
    return { type: 'set_timer', name, ms };
  }

  #clearTimer(name: TimerName): RunCommand[] {
    return this.#timers.delete(name) ? [{ type: 'clear_timer', name }] : [];
  }
}
