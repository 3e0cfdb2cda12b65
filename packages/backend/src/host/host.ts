import type { Duplex } from 'node:stream';
import type { PreflightView } from '@catalyst/protocol';
import type { CatalystError } from '../core/catalyst-error.ts';
import type { ReadWithinRequest, ReadWithinResult } from '../core/read-within-shell.ts';
import type { RunOutcome } from '../core/run-outcome.ts';
import type { VmJobs } from './vm-jobs.ts';

/**
 * The port every execution target implements: this machine (`local-host.ts`) or a VM over SSH (`ssh-host.ts`).
 * No ssh2 or child_process type appears here. Both adapters pass one contract suite (backend/test/host-contract.ts).
 */

export interface RunLimits {
  /** The wrapper stops the run when no heartbeat arrives for this long (backend killed, frozen, network cut). */
  leaseMs?: number;
  /** Between TERM and KILL when a run is stopped. */
  graceMs?: number;
  /** The last backstop: the wrapper stops the run after this long whatever happens. */
  maxRuntimeMs?: number;
  /**
   * Runs in jobs (job-run.ts): how long a turn goes on with no backend attached before the job stops it on the
   * host (CATALYST_DETACHED_LIMIT_MS). `leaseMs` when not given.
   */
  detachedMs?: number;
  /** Runs in jobs: between turns, the job ends after this long without one (CATALYST_WARM_IDLE_MS). */
  warmIdleMs?: number;
}

export interface RunSpec {
  /** From the command builder: the binary first. */
  argv: readonly string[];
  /** Absolute; the run `cd`s there first (the claude CLI's project is its cwd). */
  cwd: string;
  /**
   * Exported inside the wrapper script, never passed as ssh2 `env` (sshd drops it without AcceptEnv). NOT for
   * secrets: the script is an argument of `sh -c`, readable in `ps` by every user of the host while the run lasts.
   * `CATALYST_RUN_TAG` is reserved (the wrapper sets it).
   */
  env?: Readonly<Record<string, string>>;
  limits?: RunLimits;
}

export type { RunOutcome, StartFailureCode } from '../core/run-outcome.ts';
export type { ReadWithinEntry, ReadWithinRequest, ReadWithinResult } from '../core/read-within-shell.ts';

export interface RunHandle {
  /** Unique per run; every process of the run carries it in its environment (CATALYST_RUN_TAG). */
  readonly runTag: string;
  /** The process's stdout bytes, after the wrapper's start marker (rc-file noise never reaches it). */
  readonly stdout: AsyncIterable<Uint8Array>;
  /** The process's stderr bytes, after the marker, without the wrapper's own status lines. */
  readonly stderr: AsyncIterable<Uint8Array>;
  /**
   * Writes one line (without its `\n`) to the process's stdin; resolves when it has been handed to the transport.
   * The line must be a JSON object (start with `{`) and hold no newline: the wrapper reads other lines as its own
   * commands. Rejects with INVALID_ARGUMENT for such a line, RUN_INPUT_CLOSED after endInput() or the run's end.
   */
  writeLine(line: string): Promise<void>;
  /** Closes the process's stdin (the claude CLI then exits once idle); the run's lease goes on. Idempotent. */
  endInput(): Promise<void>;
  /**
   * SIGINT to the job's main process alone (the claude CLI, not its tools or the wrapper): the CLI ends the turn
   * and exits (claude-cli-protocol.md §9), not always after printing the interrupted result. The run is not
   * stopped and no stop is recorded, so the outcome is how the process then ends, usually `exited`. One signal per call, nothing else changes. Still works after
   * endInput() (the CLI can hang after its result); a no-op once the run has ended. When the channel can no
   * longer carry it, nothing happens: escalate to cancel() if the run does not end.
   */
  interrupt(): void;
  /** Stops the run: TERM to every process carrying the run tag, a grace period, then KILL. Idempotent. */
  cancel(): void;
  /**
   * Drops the transport without asking the run to stop, as a lost connection would: the wrapper sees its stdin
   * close and stops the run by itself. The outcome is connection_lost. For shutdown and for cleanup tests.
   */
  abandon(): void;
  /**
   * Settles exactly once, never rejects. Both `stdout` and `stderr` must be read to their end (or the loop
   * broken out of) for the run to finish: their bytes are backpressured, not buffered without bound.
   */
  readonly outcome: Promise<RunOutcome>;
}

export type FileErrorCode = 'FILE_NOT_FOUND' | 'PERMISSION_DENIED' | 'FILE_ERROR';

export interface FileStat {
  kind: 'file' | 'directory' | 'other';
  size: number;
  modifiedMs: number;
}

export interface DirectoryEntry {
  name: string;
  kind: FileStat['kind'];
}

/** A directory entry with its lstat: a symlink is `other`, its size and time its own. */
export interface DirectoryEntryStat extends DirectoryEntry {
  size: number;
  modifiedMs: number;
}

/** For what a write creates: `mode`, its permission bits (less the umask of the process that creates it). */
export interface CreateOptions {
  mode?: number;
}

export interface HostFiles {
  /** Rejects with a CatalystError: FILE_NOT_FOUND, PERMISSION_DENIED or FILE_ERROR. */
  readFile(path: string): Promise<Buffer>;
  /**
   * Up to `length` bytes from byte `offset`: fewer at the end of the file, none past it. For files too large to read
   * whole (an idea's event history can outgrow V8's string limit). Errors as readFile.
   */
  readRange(path: string, offset: number, length: number): Promise<Buffer>;
  /**
   * Writes a temporary file beside `path`, then renames it over `path` atomically (readers see old or new). The file
   * has `options.mode`; without one, a replaced file's own mode.
   */
  writeFileAtomic(path: string, data: Buffer | string, options?: CreateOptions): Promise<void>;
  /**
   * Appends to a file, creating it (with `options.mode`) when missing (the idea's event history: batched appends,
   * never rewrites).
   */
  appendFile(path: string, data: Buffer | string, options?: CreateOptions): Promise<void>;
  /** `mkdir -p`; the directories it creates get `options.mode`, those that exist keep theirs. */
  mkdirp(path: string, options?: CreateOptions): Promise<void>;
  stat(path: string): Promise<FileStat>;
  list(path: string): Promise<DirectoryEntry[]>;
  /** As list, with each entry's size and modification time (one SFTP readdir: its attrs are lstat's). */
  listWithStats(path: string): Promise<DirectoryEntryStat[]>;
  /** The absolute path with every symlink resolved (realpath(3)); FILE_NOT_FOUND when a part of it is missing. */
  realpath(path: string): Promise<string>;
  /**
   * A file's first `maxBytes` bytes, or a directory's entries (lstat's), at `path` inside `root`: resolved, checked
   * to stay inside `root` (whose own name is no symlink) and read in one step on the host, so nothing there can swap
   * a folder for a symlink in between (issue 25, finding 10). Anything but a regular file or a directory (a FIFO,
   * a socket, a device) is `other`, never opened. Over SSH one script (core/read-within-shell.ts), locally
   * O_NOFOLLOW|O_NONBLOCK opens under a pinned directory (local-read-within.ts). FILE_NOT_FOUND, PERMISSION_DENIED,
   * FILE_ERROR as readFile; HOST_TIMED_OUT past the host's file time limit.
   */
  readWithin(request: ReadWithinRequest): Promise<ReadWithinResult>;
  /**
   * Removes a file, or a directory with everything in it. A missing path is not an error. Directories the user
   * owns but cannot write (a build's `chmod 555`) are made writable (u+rwx) first, as `chmod -R u+w; rm -rf` would.
   */
  remove(path: string): Promise<void>;
  /**
   * rename(2) within one filesystem that never replaces: FILE_ERROR when `to` exists, a file or a directory, empty
   * or not (SFTP's plain rename refuses to overwrite, so the local adapter refuses too); FILE_NOT_FOUND when `from`
   * is missing.
   */
  rename(from: string, to: string): Promise<void>;
}

/** A host's preflight: the wire shape the API serves (protocol rest.ts) is the backend's own. */
export type Preflight = PreflightView;

/** The preflight's warning for a host without git (issue 13). */
export const NO_GIT_WARNING = 'git is not installed: builds are not checkpointed, and cannot be undone.';

/** A terminal's shell (issue 31): where it starts, the tag every process of it carries, its first window size. */
export interface TerminalSpec {
  /** Absolute: the idea's `project/`. */
  cwd: string;
  /** Set as CATALYST_RUN_TAG in the shell's environment, so killRun(runTag) stops all it started. */
  runTag: string;
  cols: number;
  rows: number;
}

/** A quarter of a host's run slots, at least 1: what its terminals may hold of them (Host.maxTerminals). */
export function terminalShareOf(runSlots: number): number {
  return Math.max(1, Math.floor(runSlots / 4));
}

export type TerminalEnd =
  { kind: 'exited'; code: number | null; signal: string | null } | { kind: 'lost'; message: string };

/** An interactive shell on a pty of the host: bytes in, bytes out (stdout and stderr are one stream on a pty). */
export interface HostTerminal {
  /** The pty's output as it comes; read it to its end, or the shell stalls (backpressure, not buffering). */
  readonly output: AsyncIterable<Uint8Array>;
  /**
   * The person's keys, to the pty; dropped once the shell has ended. False when the way to the pty has its fill (the
   * SSH window is spent, the pipe is full): the bytes are kept, but the caller waits for drained() before more.
   */
  write(data: Uint8Array): boolean;
  /** Settles once what was written has gone on towards the pty (or the shell has ended). */
  drained(): Promise<void>;
  /** The pty's window change (SIGWINCH to its foreground job). */
  resize(cols: number, rows: number): void;
  /** Ends the shell and everything it started (kill by its run tag), then the channel. Idempotent. */
  close(): Promise<void>;
  /** Settles once the shell has exited or its transport has gone; never rejects. */
  readonly ended: Promise<TerminalEnd>;
}

export interface Host extends HostFiles {
  /** A name for logs and errors (`local`, or `user@host:port`). */
  readonly label: string;
  startRun(spec: RunSpec): Promise<RunHandle>;
  /**
   * A short command of Catalyst's own (a checkpoint's git, the ports look-up, a host check: host-command.ts), in the
   * same wrapper as a run. Over SSH it takes a control channel, so it never waits behind runs, terminals and warm
   * sessions that hold every run channel (issue 39, carried item 3); locally it is startRun.
   */
  startCommand(spec: RunSpec): Promise<RunHandle>;
  /** Sessions that live on the host, detached from every channel (vm-jobs.ts, issue 11). */
  readonly jobs: VmJobs;
  /** The host user's home directory (absolute): where `~/catalyst/ideas` lives. */
  homeDir(): Promise<string>;
  preflight(): Promise<Preflight>;
  /**
   * A TCP connection to `<address>:<port>` on the host (a preview's dev server, issue 14): over SSH a direct-tcpip
   * channel (ssh2 `forwardOut`) on a pooled connection, where it takes none of sshd's MaxSessions slots; locally a
   * socket. `address` is an IP address, never a name: `localhost` may resolve to ::1 or 127.0.0.1 first, and another
   * user of the host can listen on the one the app does not hold (issue 25, finding 6). Rejects with
   * PORT_UNREACHABLE when nothing listens there (or sshd forbids forwarding), CONNECTION_LOST when the host cannot
   * be reached.
   */
  openTcp(address: string, port: number): Promise<Duplex>;
  /**
   * An interactive login shell on a pty in `spec.cwd` (issue 31): over SSH an exec channel with a pty on a pooled
   * connection, locally `script(1)` (util-linux) around the shell, so no native module. Rejects with a CatalystError
   * (HOST_UNAVAILABLE, RUN_START_FAILED) when it cannot be opened.
   */
  openTerminal(spec: TerminalSpec): Promise<HostTerminal>;
  /**
   * How many terminals may be open on this host at once, over all its ideas: over SSH a terminal holds one of the
   * pool's run slots for as long as it is open, so terminals get a quarter of them (terminalShareOf) and runs keep
   * the rest.
   */
  readonly maxTerminals: number;
  /** Stops every process carrying `runTag`, from any connection (after a reconnect or a backend restart). */
  killRun(runTag: string): Promise<void>;
  /**
   * Stops this user's runs whose watchdog is gone (heartbeat older than SWEEP_STALE_MS) and removes the run dirs no
   * wrapper owns any more, such as a SIGKILLed wrapper's. Resolves to the tags it stopped. Catalyst calls it at
   * start-up (hosts/host-sweep.ts).
   */
  sweepRuns(): Promise<string[]>;
  /** Closes connections; running runs end as their wrapper's lease lapses or their stdin closes. */
  close(): Promise<void>;
  /**
   * How a new connection would go (an SSH host named by its ~/.ssh/config alias, issue 28): the target and the jump
   * hosts before it, as labels, and what of the person's ssh_config Catalyst does not honour. Absent for a host
   * that has no such route (the local one).
   */
  describeRoute?(): Promise<HostRoute>;
  /**
   * How the host let Catalyst in on its newest connection (`the key file ~/.ssh/id_ed25519`, `the ed25519 key … in
   * the ssh-agent`): for the host's check. Undefined before a connection, and for the local host.
   */
  authenticatedWith?(): string | undefined;
}

export interface HostRoute {
  readonly target: string;
  readonly jumps: readonly string[];
  readonly proxyCommand?: string | undefined;
  readonly ignored: readonly string[];
}

export type HostError = CatalystError;
