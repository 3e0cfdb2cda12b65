import { CatalystError } from '../core/catalyst-error.ts';
import {
  LIST_JOBS,
  REMOVE_JOB,
  renderAttach,
  renderJobIdLine,
  renderJobStart,
  renderJobStop,
  type JobLimits,
} from '../core/vm-job-shell.ts';
import {
  ATTACH_START_LINE,
  createJobStderrFilter,
  stripMarker,
  type JobTrailer,
} from '../core/job-stderr.ts';
import { isMarkerShape, parseMarkerLine, VM_MARKERS } from '../core/vm-markers.ts';
import type { ShellCall } from '../core/shell-quote.ts';
import { createChunkQueue } from './chunk-queue.ts';
import { renderFollowerLine } from './job-follower.ts';
import type { OpenRawChannel } from './raw-channel.ts';
import { runControlScript } from './ssh/ssh-control-command.ts';

/**
 * Sessions that live on the host (core/vm-job-shell.ts), over any OpenRawChannel: the same code for the local
 * host and the SSH host. A session outlives every channel; an attachment is one channel that follows its output
 * from a byte offset and carries input, heartbeats and control lines to it.
 */

export interface VmJobSpec {
  sessionId: string;
  argv: readonly string[];
  cwd: string;
  env?: Readonly<Record<string, string>>;
  limits: JobLimits;
}

export interface VmJobInfo {
  sessionId: string;
  isAlive: boolean;
  stdoutBytes: number;
  stderrBytes: number;
  /** Once the supervisor is done: how the job ended and why (`exit`, `cancel`, `idle`, `disk_full`, …). */
  status?: { code: number; reason: string };
  /**
   * An attacher holds the session (a Catalyst follows it): how long ago its Catalyst was last heard from, in whole
   * seconds. A live one answers within its heartbeat; `staleAfterMs(…)` says when one is taken for gone.
   */
  heldForSeconds?: number;
}

export type AttachmentEnd =
  | { kind: 'session_ended'; code: number; reason: string }
  /** The channel went away (closed by us, or the connection lost): the session goes on. */
  | { kind: 'detached'; message: string }
  | { kind: 'refused'; code: 'SESSION_BUSY' | 'SESSION_GONE'; message: string };

export interface JobAttachment {
  /** Bytes of `out` from the offset asked for, as they are written. */
  readonly stdout: AsyncIterable<Uint8Array>;
  readonly stderr: AsyncIterable<Uint8Array>;
  /** One JSON line into the job's stdin. */
  writeLine(line: string): void;
  /** Tells the supervisor a turn runs (`true`) or the session is idle: its limits depend on it. */
  markTurn(isRunning: boolean): void;
  endInput(): void;
  interrupt(): void;
  cancel(): void;
  /** Closes this channel; the session goes on. */
  detach(): void;
  /** True once the attach script holds the session (its start marker); false when it was refused or failed. */
  readonly ready: Promise<boolean>;
  readonly ended: Promise<AttachmentEnd>;
}

export interface AttachOptions {
  heartbeatMs?: number;
  /**
   * The session is about to be started: the attachment resolves once its channel is open and then waits on the
   * host for the start (start it after that), so a new session is followed from its first moment.
   */
  awaitStart?: boolean;
  /**
   * Who follows (job-follower.ts): the same for every attachment of one run. An attach for the
   * follower that holds the session takes over that attachment at once rather than waiting for it to go stale, so
   * give it only once that attachment has ended here (its channel is gone; the VM may not know yet, issue 39).
   */
  follower?: string;
}

export interface VmJobs {
  start(spec: VmJobSpec): Promise<void>;
  /**
   * Refused (SESSION_BUSY) while another attacher holds the session and is heard from; one silent for longer than
   * staleAfterMs(heartbeatMs), or one opened for the same `follower`, is displaced.
   */
  attach(
    sessionId: string,
    offsets: { stdout: number; stderr: number },
    options?: AttachOptions,
  ): Promise<JobAttachment>;
  list(): Promise<VmJobInfo[]>;
  stop(sessionId: string): Promise<void>;
  /** Removes a finished session's files; SESSION_BUSY while it lives. */
  remove(sessionId: string): Promise<void>;
  /**
   * Catalyst lets go of the host: every attachment detaches (the sessions go on, under their own limits), and
   * attach() refuses from now on with CONNECTION_LOST, so nothing keeps reconnecting.
   */
  close(): void;
  readonly isClosed: boolean;
}

export interface VmJobsOptions {
  /** For attachments, which last as long as Catalyst follows the session. */
  open: OpenRawChannel;
  /** For the short scripts (start, list, stop, remove); `open` when not given. */
  openControl?: OpenRawChannel;
  shell?: string;
  heartbeatMs?: number;
  graceMs?: number;
}

const CONTROL_TIMEOUT_MS = 30_000;
const DEFAULT_HEARTBEAT_MS = 5_000;
/** The start script's exit when the disk that holds the sessions is full. */
const DISK_FULL_EXIT = 6;

/** After how long without a heartbeat an attacher is taken for gone: three missed heartbeats and a second. */
export function staleAfterMs(heartbeatMs: number = DEFAULT_HEARTBEAT_MS): number {
  return 3 * heartbeatMs + 1_000;
}
const QUEUE_HIGH_WATER_BYTES = 1024 * 1024;
const DETACH_GRACE_MS = 5_000;

export function createVmJobs(options: VmJobsOptions): VmJobs {
  const { open } = options;
  const openControl = options.openControl ?? open;
  const live = new Set<JobAttachment>();
  let isClosed = false;
  const control = async (call: ShellCall, what: string, input: string) => {
    const result = await runControlScript(openControl, call, {
      timeoutMs: CONTROL_TIMEOUT_MS,
      what,
      input,
    });
    return { ...result, code: result.end.kind === 'exited' ? result.end.code : null };
  };
  return {
    async start(spec) {
      const call = renderJobStart(spec, options.shell);
      const result = await control(call, 'starting a session', renderJobIdLine(spec.sessionId));
      if (result.code === 0 && hasStarted(result.stdout)) return;
      if (result.code === DISK_FULL_EXIT) {
        throw new CatalystError(
          'HOST_DISK_FULL',
          'The VM’s disk is full (no space left where Catalyst keeps its sessions), so Claude could not start. ' +
            'Free some space on the VM, then send the message again.',
          { details: { sessionId: spec.sessionId, stderr: result.stderr.trim() } },
        );
      }
      throw new CatalystError('RUN_START_FAILED', `the session did not start: ${result.stderr.trim()}`, {
        details: { sessionId: spec.sessionId, code: result.code },
      });
    },
    async attach(sessionId, offsets, attachOptions = {}) {
      if (isClosed) throw new CatalystError('CONNECTION_LOST', 'Catalyst has let go of this host');
      const attachment = await attachSession(open, sessionId, {
        offsets,
        heartbeatMs: attachOptions.heartbeatMs ?? options.heartbeatMs,
        awaitStart: attachOptions.awaitStart === true,
        follower: attachOptions.follower,
      });
      live.add(attachment);
      void attachment.ended.then(() => live.delete(attachment));
      return attachment;
    },
    close() {
      isClosed = true;
      for (const attachment of live) attachment.detach();
    },
    get isClosed() {
      return isClosed;
    },
    async list() {
      const result = await control(LIST_JOBS, 'listing sessions', '');
      return result.stdout.split('\n').flatMap(parseSessionLine);
    },
    async stop(sessionId) {
      const graceSeconds = (options.graceMs ?? 5_000) / 1000;
      await control(renderJobStop(graceSeconds), 'stopping a session', renderJobIdLine(sessionId));
    },
    async remove(sessionId) {
      const result = await control(REMOVE_JOB, 'removing a session', renderJobIdLine(sessionId));
      if (result.code === 5) {
        throw new CatalystError('SESSION_BUSY', `session ${sessionId} is still running`);
      }
    },
  };
}

/** The start script's `@@catalyst-attach started`, on a line of its own or after rc-file noise that lacks a newline. */
function hasStarted(stdout: string): boolean {
  // From every `@@` of the line: rc-file noise before the marker may hold one too.
  return stdout.split('\n').some((line) =>
    line.split('@@').some((_part, index, parts) => {
      if (index === 0) return false;
      const marker = parseMarkerLine(`@@${parts.slice(index).join('@@')}`);
      return isMarkerShape(marker, VM_MARKERS.attach, { words: ['started'] });
    }),
  );
}

function parseSessionLine(line: string): VmJobInfo[] {
  const match = /^([a-z0-9-]{8,64}) ([01]) (\d+) (\d+) (-|\d+) (?:code=(\d+) reason=(\S+)|-)$/.exec(line);
  if (match === null) return [];
  const [, sessionId = '', alive, stdoutBytes, stderrBytes, held, code, reason] = match;
  return [
    {
      sessionId,
      isAlive: alive === '1',
      stdoutBytes: Number(stdoutBytes),
      stderrBytes: Number(stderrBytes),
      ...(code === undefined || reason === undefined ? {} : { status: { code: Number(code), reason } }),
      ...(held === undefined || held === '-' ? {} : { heldForSeconds: Number(held) }),
    },
  ];
}

/**
 * Opens A (renderAttach) and waits for its start marker (or its refusal). The marker lines are A's own and never
 * reach `stdout`/`stderr`; neither does the end trailer on stderr.
 */
async function attachSession(
  open: OpenRawChannel,
  sessionId: string,
  options: {
    offsets: { stdout: number; stderr: number };
    heartbeatMs: number | undefined;
    awaitStart: boolean;
    follower: string | undefined;
  },
): Promise<JobAttachment> {
  const heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
  const call = renderAttach(options.offsets, staleAfterMs(heartbeatMs) / 1000, {
    awaitStart: options.awaitStart,
  });
  // Checked before the channel is opened: nothing to close when they are refused.
  const firstLines = renderJobIdLine(sessionId) + renderFollowerLine(options.follower);
  const channel = await open(call);
  // A refused or ended attach script stops reading: a late heartbeat then fails (EPIPE); `ended` tells the rest.
  channel.stdin.on('error', () => undefined);
  channel.stdin.write(firstLines);
  // Backpressure as for runs: the channel pauses while the reader is far behind (a replay from offset 0).
  const queue = (stream: NodeJS.ReadableStream) =>
    createChunkQueue({ highWaterBytes: QUEUE_HIGH_WATER_BYTES, onResume: () => stream.resume() });
  const stdout = queue(channel.stdout);
  const stderr = queue(channel.stderr);
  let markReady: (isReady: boolean) => void = () => undefined;
  const ready = new Promise<boolean>((resolve) => (markReady = resolve));
  const outMarker = stripMarker(ATTACH_START_LINE, () => {
    markReady(true);
  });
  const errFilter = createJobStderrFilter();
  channel.stdout.on('data', (chunk: Buffer) => {
    const rest = outMarker(chunk);
    if (rest.length > 0 && !stdout.push(rest)) channel.stdout.pause();
  });
  channel.stderr.on('data', (chunk: Buffer) => {
    const rest = errFilter.push(chunk);
    if (rest.length > 0 && !stderr.push(rest)) channel.stderr.pause();
  });
  let isOpen = true;
  const send = (line: string) => {
    if (isOpen && channel.stdin.writable) channel.stdin.write(`${line}\n`);
  };
  const heartbeat = setInterval(() => {
    send('h');
  }, heartbeatMs);
  heartbeat.unref();
  const ended = channel.ended.then((end): AttachmentEnd => {
    markReady(false);
    isOpen = false;
    clearInterval(heartbeat);
    stdout.end();
    const rest = errFilter.flush();
    if (rest.length > 0) stderr.push(rest);
    stderr.end();
    return interpretEnd(end, errFilter.trailer());
  });
  return {
    stdout: stdout.iterable,
    stderr: stderr.iterable,
    writeLine: (line) => {
      if (!line.startsWith('{') || line.includes('\n')) {
        throw new CatalystError('INVALID_ARGUMENT', 'a session input line must be one JSON object');
      }
      send(line);
    },
    markTurn: (isRunning) => {
      send(isRunning ? 't' : 'r');
    },
    endInput: () => {
      send('e');
    },
    interrupt: () => {
      send('i');
    },
    cancel: () => {
      send('c');
    },
    ready,
    detach: () => {
      if (!isOpen) return;
      isOpen = false;
      clearInterval(heartbeat);
      // EOF first: A forwards what it has read, stops following and exits, so the channel closes by itself with
      // nothing lost. A channel that cannot carry the EOF any more is torn down.
      channel.stdin.end();
      const teardown = setTimeout(() => {
        channel.destroy();
      }, DETACH_GRACE_MS);
      teardown.unref();
      void ended.then(() => {
        clearTimeout(teardown);
      });
    },
    ended,
  };
}

function interpretEnd(
  end: { kind: 'exited'; code: number | null } | { kind: 'lost'; message: string },
  trailer: JobTrailer | undefined,
): AttachmentEnd {
  if (trailer !== undefined) return { kind: 'session_ended', ...trailer };
  if (end.kind === 'exited' && end.code === 4) {
    return { kind: 'refused', code: 'SESSION_BUSY', message: 'another Catalyst is attached to this session' };
  }
  if (end.kind === 'exited' && end.code === 3) {
    return { kind: 'refused', code: 'SESSION_GONE', message: 'the session is no longer on the host' };
  }
  return { kind: 'detached', message: end.kind === 'lost' ? end.message : 'the channel closed' };
}
