import { createDenyResponse, type RelayEvent, type RelayEventDraft } from '@catalyst/protocol';
import type { RunEnding } from './core/run-ending.ts';
import { RunLifecycle, type RunCommand, type RunInput } from './core/run-lifecycle.ts';
import { RunTimers } from './run-timers.ts';
import { capRelayEvent } from './core/relay-event-size.ts';
import { autoAnswerSetup } from './auto-answer-run.ts';
import { RunPrompts } from './run-prompts.ts';
import type { ConnectionEvent } from '../host/job-run.ts';
import { startFailureOf } from '../host/wrapped-run.ts';
import { SessionProcess } from './session-process.ts';
import type { RunOutcome } from '../host/host.ts';
import type { ActiveRun } from './active-run.ts';
import { lifecycleOptionsOf, type RunDriverOptions } from './run-driver-options.ts';
import { newSessionId, sessionSpec } from './session-spec.ts';
import { unrecorded, type ResumePoint } from './resume-point.ts';
import { TurnCursor, type Trigger } from './turn-cursor.ts';

/** The lifecycle's pending wait while the run's session is detached (the inactivity timeout pauses). */
const DETACHED_PENDING_ID = 'connection';

/**
 * The I/O half of a run: starts claude on the idea's host, feeds everything that happens to the pure
 * RunLifecycle (runs/core/run-lifecycle.ts), and carries out the commands it returns (write to stdin, timers, stop,
 * relay events). The lifecycle decides; this only does.
 */
export function startRunDriver(options: RunDriverOptions): ActiveRun {
  return new RunDriver(options);
}

class RunDriver implements ActiveRun {
  readonly runId: string;
  readonly ended: Promise<RunEnding>;
  readonly prompts: RunPrompts;
  readonly #options: RunDriverOptions;
  readonly #lifecycle: RunLifecycle;
  readonly #timers = new RunTimers((name) => {
    this.input({ type: 'timer_fired', name, now: Date.now() });
  });
  #process: SessionProcess | undefined;
  /** Set when the turn ended with its process kept (warm): the process's cumulative cost so far. */
  #keptCostUsd: number | undefined;
  /** What was written to claude before it printed anything of this turn (the message): for #rerunInNewProcess. */
  readonly #firstWrites: string[] = [];
  #hasRerun = false;
  #runEnded: RelayEventDraft | undefined;
  #isFinishing = false;
  #writes: Promise<void> = Promise.resolve();
  #resolve!: (ending: RunEnding) => void;
  /** The run's session on the host: its id, and where in its stdout this run's turn began. */
  #session: { id: string; stdout: number; stderr: number };
  readonly #cursor: TurnCursor;
  /** Inputs that come of an input being handled, fed once its commands are carried out. */
  readonly #deferred: RunInput[] = [];
  #isDetached = false;
  readonly #toHistory: (draft: RelayEventDraft) => RelayEvent;

  constructor(options: RunDriverOptions) {
    // Every event of a run passes the size bound before the history and the browsers see it (relay-event-size.ts).
    this.runId = options.runId;
    this.#toHistory = options.emit;
    this.#options = { ...options, emit: (draft) => this.#emit(capRelayEvent(draft)) };
    // Until the process is there (#run), then its own; a run taken up keeps the one it recorded.
    this.#session = options.resume?.session ?? { id: '', stdout: 0, stderr: 0 };
    this.#cursor = new TurnCursor(options.resume?.cursor);
    this.#lifecycle = new RunLifecycle(lifecycleOptionsOf(options));
    this.prompts = new RunPrompts({
      ideaId: options.ideaId,
      runId: options.runId,
      emit: this.#options.emit,
      answer: (id, response) => {
        this.input({ type: 'prompt_answered', id, response, now: Date.now() });
      },
      humanAnswerLimitMs: options.humanAnswerLimitMs,
      autoAnswer:
        options.autoAnswer === undefined
          ? undefined
          : autoAnswerSetup(options, options.autoAnswer, (message) => {
              this.input({ type: 'fail_requested', code: 'AUTO_ANSWER_FAILED', message, now: Date.now() });
            }),
    });
    this.ended = new Promise((resolve) => (this.#resolve = resolve));
    this.#run().catch((error: unknown) => {
      this.#fail(error);
    });
  }

  input(input: RunInput, trigger: Trigger = 'other'): void {
    if (this.#lifecycle.isFinished || this.#isDetached) return;
    this.#cursor.during(trigger, () => {
      for (const command of this.#lifecycle.handle(input)) this.#execute(command);
    });
    for (let next = this.#deferred.shift(); next !== undefined; next = this.#deferred.shift()) {
      this.input(next, 'replayed');
    }
  }

  get sessionId(): string {
    return this.#session.id;
  }

  cancel(): void {
    this.input({ type: 'cancel_requested', now: Date.now() });
  }

  detach(): void {
    if (this.#lifecycle.isFinished || this.#isDetached) return;
    this.#isDetached = true;
    this.#timers.clearAll();
    this.#process?.run.abandon();
    this.#resolve({
      outcome: 'connection_lost',
      error: { code: 'CONNECTION_LOST', message: 'Catalyst stopped; the run goes on in its session.' },
    });
  }

  /**
   * Every event of the run goes out here, with where it came from (`origin`). While a resumed run reads again
   * what the history already holds, its events are not emitted again: the one recorded is answered instead.
   */
  #emit(draft: RelayEventDraft): RelayEvent {
    const source = this.#cursor.origin(() => this.#process?.stderrOffset ?? 0);
    // A run let go of writes nothing more: the next Catalyst records the rest.
    if (this.#isDetached) return unrecorded(draft);
    const resume = this.#options.resume;
    if (resume !== undefined && source !== undefined && 'line' in source && this.#cursor.isRecorded(source)) {
      return resume.recorded(draft);
    }
    // A run whose session did not start has none to record.
    const hasSession = draft.type === 'run:started' && this.#session.id !== '';
    const decorated = hasSession ? { ...draft, session: { ...this.#session } } : draft;
    return this.#toHistory(source === undefined ? decorated : { ...decorated, origin: source });
  }

  async #run(): Promise<void> {
    const { resume, warm } = this.#options;
    let process: SessionProcess;
    try {
      process =
        warm?.process ??
        (resume === undefined ? await this.#start(this.#options.sessionId) : this.#attach(resume));
    } catch (error) {
      this.input({ type: 'started', now: Date.now() });
      this.input({
        type: 'host_outcome',
        outcome: startFailureOf(error, 'SSH_CONNECT_FAILED'),
        now: Date.now(),
      });
      return;
    }
    // Cancelled while it waited to start (a busy host): the run has ended; the process that came up is stopped.
    if (this.#lifecycle.isFinished) {
      process.run.cancel();
      return;
    }
    // A run taken up keeps the session and turn start it recorded.
    if (resume === undefined) this.#bindTurn(process);
    else this.#bind(process);
    // Before the first line: its run:started and the message written are line 0 of the turn.
    this.input({ type: 'started', now: Date.now() }, 'stdout');
  }

  /** The same run in a new session (the resumed one is gone from the host), once the first process has ended. */
  async #restartWithoutSession(): Promise<void> {
    let process: SessionProcess;
    let recap: string;
    try {
      recap = await this.#options.recap();
      process = await this.#start(undefined);
    } catch (error) {
      this.input({ type: 'host_outcome', outcome: startFailureOf(error), now: Date.now() });
      return;
    }
    this.#bindTurn(process);
    this.input({ type: 'restarted', recap, now: Date.now() });
  }

  /**
   * A waiting process ended as its turn began, before printing anything of it: its idle limit on the host closed
   * its input just then, or claude exited after its last result. Not the turn's failure: it runs in a new process.
   */
  #isWarmGoneBeforeTurn(process: SessionProcess): boolean {
    return process === this.#options.warm?.process && this.#cursor.isBeforeFirstLine && !this.#hasRerun;
  }

  async #rerunInNewProcess(outcome: RunOutcome): Promise<void> {
    this.#hasRerun = true;
    this.#options.logger.info(
      { ideaId: this.#options.ideaId, runId: this.#options.runId },
      'the waiting claude ended as the turn began; running the turn in a new one',
    );
    let process: SessionProcess;
    try {
      process = await this.#start(this.#options.sessionId);
    } catch {
      this.input({ type: 'host_outcome', outcome, now: Date.now() });
      return;
    }
    this.#bindTurn(process);
    for (const line of this.#firstWrites) this.#queueWrite(() => process.run.writeLine(line));
  }

  /** The turn begins in this process, here: `run:started` records its session and offsets. */
  #bindTurn(process: SessionProcess): void {
    this.#session = { id: process.sessionId, stdout: process.stdoutOffset, stderr: process.stderrOffset };
    this.#bind(process);
  }

  /** The turn follows the process: its output, its connection, and how it ends. */
  #bind(process: SessionProcess): void {
    this.#process = process;
    const decoder = new TextDecoder();
    process.bind({
      event: (event) => {
        const now = Date.now();
        this.#cursor.nextLine();
        if (event.kind === 'message') this.input({ type: 'message', message: event.message, now }, 'stdout');
        else this.input({ type: 'stream_error', event, now }, 'stdout');
      },
      stderr: (chunk) => {
        const text = decoder.decode(chunk, { stream: true });
        if (text !== '') this.input({ type: 'stderr', text, now: Date.now() }, 'stderr');
      },
      ended: (outcome) => {
        if (this.#isWarmGoneBeforeTurn(process)) void this.#rerunInNewProcess(outcome);
        else this.input({ type: 'host_outcome', outcome, now: Date.now() });
      },
      connection: (event) => {
        this.#onConnection(event);
      },
    });
  }

  #start(sessionId: string | undefined): Promise<SessionProcess> {
    // claude runs in a session on the host, not in the channel: a dropped connection only detaches the run
    // (host/job-run.ts). While detached, Claude's silence is not inactivity: the timeout pauses.
    const id = newSessionId(this.#options.ideaId);
    return SessionProcess.start(sessionSpec(this.#options, sessionId), this.#options.host.jobs, id);
  }

  /** The session an earlier Catalyst left, read again from its turn's start (stderr from where it was). */
  #attach(resume: ResumePoint): SessionProcess {
    const from = { stdout: resume.session.stdout, stderr: resume.stderr };
    const spec = sessionSpec(this.#options, this.#options.sessionId);
    return SessionProcess.attach(spec, this.#options.host.jobs, resume.session.id, from);
  }

  #onConnection(event: ConnectionEvent): void {
    const { ideaId, runId, host } = this.#options;
    const now = Date.now();
    if (event.state === 'detached') {
      this.#options.emit({ ideaId, runId, type: 'run:detached', host: host.label, reason: event.reason });
      this.input({ type: 'pending_started', id: DETACHED_PENDING_ID, now });
    } else {
      this.#options.emit({ ideaId, runId, type: 'run:attached', host: host.label });
      this.input({ type: 'pending_finished', id: DETACHED_PENDING_ID, now });
    }
  }

  #execute(command: RunCommand): void {
    const handle = this.#process?.run;
    switch (command.type) {
      case 'write_line':
        if (this.#cursor.isBeforeFirstLine) this.#firstWrites.push(command.line);
        if (handle && !this.#cursor.isReplayedWrite()) this.#queueWrite(() => handle.writeLine(command.line));
        return;
      case 'end_input':
        if (handle && !this.#cursor.isReplayedWrite()) this.#queueWrite(() => handle.endInput());
        return;
      case 'interrupt_process':
        // SIGINT to the CLI alone: it ends the turn and exits (claude-cli-protocol.md §9). If it does not, the
        // lifecycle's stop_kill timer follows with kill_run.
        handle?.interrupt();
        return;
      case 'kill_run':
        // The wrapper's stop: TERM to every process carrying the run tag (the CLI and whatever its tools
        // started, also in their own sessions), a grace period, then KILL (run-wrapper.ts).
        handle?.cancel();
        return;
      case 'abandon_process':
        // The run ends now; the session is told to stop once more, and its own limits stop it if that is lost.
        this.#process?.run.abandonStopping();
        return;
      case 'set_timer':
        this.#timers.set(command.name, command.ms);
        return;
      case 'clear_timer':
        this.#timers.clear(command.name);
        return;
      case 'emit':
        if (command.event.type === 'run:ended') this.#runEnded = command.event;
        else this.#options.emit(command.event);
        return;
      case 'relay_live':
        // Text of a line read again was streamed then; its complete message is in the history.
        if (!this.#cursor.isReplayedWrite()) this.#options.relayLive(command.frame);
        return;
      case 'ask':
        // Answered before Catalyst restarted: the lifecycle learns it, and nothing is written or asked again.
        if (
          this.#options.resume?.settledPrompts.has(command.requestId) === true &&
          this.#cursor.isReplayedWrite()
        ) {
          const response = createDenyResponse(command.requestId, 'answered before Catalyst restarted');
          this.#deferred.push({ type: 'prompt_answered', id: command.requestId, response, now: Date.now() });
          return;
        }
        this.prompts.ask(command.prompt, command.requestId, command.request);
        return;
      case 'close_prompts':
        this.prompts.close(command.ids, command.reason);
        return;
      case 'restart_without_session':
        this.#restartWithoutSession().catch((error: unknown) => {
          this.#fail(error);
        });
        return;
      case 'session_started':
        this.#options.onSession(command.sessionId).catch((error: unknown) => {
          this.#options.logger.error(
            { err: error, ideaId: this.#options.ideaId },
            'could not save the session id',
          );
        });
        return;
      case 'log':
        this.#options.logger[command.level](
          { ideaId: this.#options.ideaId, runId: this.#options.runId },
          command.message,
        );
        return;
      case 'keep_process':
        this.#keptCostUsd = command.costBaseUsd;
        return;
      case 'finish':
        this.#timers.clearAll();
        void this.#finish(command);
        return;
    }
  }

  async #finish(ending: RunEnding): Promise<void> {
    if (this.#isFinishing) return;
    this.#isFinishing = true;
    // Handed back before the idea is released: the next turn must find it.
    const process = this.#process;
    if (process !== undefined && this.#keptCostUsd !== undefined && !process.isOver) {
      process.unbind();
      this.#options.onKeep?.({ process, mode: this.#options.mode, costBaseUsd: this.#keptCostUsd });
    }
    try {
      await this.#options.onFinish(ending);
    } catch (error) {
      this.#options.logger.error(
        { err: error, runId: this.#options.runId },
        'could not record the end of a run',
      );
    }
    // The ending reaches the history and the browsers even when meta.json could not be written.
    try {
      if (this.#runEnded) this.#options.emit(this.#runEnded);
    } catch (error) {
      this.#options.logger.error(
        { err: error, runId: this.#options.runId },
        'could not relay the end of a run',
      );
    } finally {
      this.#resolve(ending);
    }
  }

  /**
   * Whatever went wrong in the driver itself (a throwing listener, a history that refused an event), the run must
   * still end once: its processes stopped, the idea released, `ended` settled. Never an unhandled rejection.
   */
  #fail(error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    this.#options.logger.error(
      { err: error, runId: this.#options.runId },
      'the run driver failed; ending the run',
    );
    this.#process?.run.cancel();
    try {
      this.input({
        type: 'host_outcome',
        outcome: { kind: 'start_failed', code: 'RUN_START_FAILED', message },
        now: Date.now(),
      });
    } catch (again) {
      this.#options.logger.error({ err: again, runId: this.#options.runId }, 'the run lifecycle failed too');
    }
    void this.#finish({ outcome: 'failed', error: { code: 'INTERNAL', message } });
  }

  /** Writes keep their order; a failed write (the process already gone) is logged, the outcome tells the rest. */
  #queueWrite(write: () => Promise<void>): void {
    this.#writes = this.#writes.then(write).catch((error: unknown) => {
      this.#options.logger.warn({ err: error, runId: this.#options.runId }, 'write to claude failed');
    });
  }
}
