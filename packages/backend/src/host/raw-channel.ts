import type { Readable, Writable } from 'node:stream';
import type { ShellCall } from '../core/shell-quote.ts';

/**
 * What each adapter opens for a run, before the shared run logic (wrapped-run.ts) takes over: a process running
 * the wrapper script under `/bin/sh`, locally through child_process or remotely through an ssh2 exec channel
 * (no pty: a pty merges stderr into stdout and makes claude think it is interactive, ssh-field-notes.md §2).
 */
export type RawChannelEnd =
  | { kind: 'exited'; code: number | null; signal: string | null }
  /** The transport went away (SSH connection lost) before the process's exit status arrived. */
  | { kind: 'lost'; message: string };

export interface RawChannel {
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** Settles once the process has ended and its stdout and stderr are drained. */
  readonly ended: Promise<RawChannelEnd>;
  /**
   * Tears the transport down without a word to the wrapper: close the SSH channel, or close the local pipes. Never
   * a kill: the wrapper's watchdog sees its stdin end and stops the run itself (run-wrapper.ts), and `ended` still
   * settles once the wrapper has exited.
   */
  destroy(): void;
}

/**
 * Opens a channel running `call` (a script of packages/backend/vm with its arguments, from renderRunWrapper and the
 * like) with `/bin/sh`: locally `/bin/sh -c <script> <name> <args…>` in a new session; over SSH
 * `wrapForAnyLoginShell(call)`, no pty. Rejects with a CatalystError when the channel cannot be opened (its code
 * becomes the run's start_failed code when it is one).
 */
export type OpenRawChannel = (call: ShellCall) => Promise<RawChannel>;
