import type { ConfigPosition } from './ssh-config-errors.ts';
import type { JumpSpec } from './ssh-jump-spec.ts';
import type { StrictHostKeyChecking } from './ssh-config-values.ts';

/**
 * The options gathered while reading the config files: every field starts unset and, as in readconf.c, the first
 * value obtained wins; lists say how they grow where they are set.
 */

/** ProxyJump as set: `none`, or its last hop parsed and the earlier hops as written (ssh's jump_extra). */
export type JumpState =
  | { readonly kind: 'none' }
  | { readonly kind: 'hops'; readonly last: JumpSpec; readonly earlier: string | undefined };

/** An option ssh knows that Catalyst does not act on, kept so the caller can say so. */
export interface OtherOption {
  /** Lowercased. */
  readonly keyword: string;
  /** As the file writes it (`ControlMaster`). */
  readonly written: string;
  /** The text after the keyword, as written. */
  readonly value: string;
  readonly at: ConfigPosition;
}

/** Something in the config that was read but not honoured (a deprecated keyword, a Match criterion from 10.x…). */
export interface SshConfigNote {
  readonly at: ConfigPosition | undefined;
  readonly message: string;
}

/** A value that is expanded later, with the line it came from for the error sentence (undefined: from a caller). */
export interface Sourced {
  readonly value: string;
  readonly at: ConfigPosition | undefined;
}

export interface OptionState {
  hostname: Sourced | undefined;
  user: string | undefined;
  port: number | undefined;
  hostKeyAlias: string | undefined;
  ignoreUnknown: string | undefined;
  /** Appended by every applying line (up to 100, duplicates skipped); `none` entries are kept until the end. */
  readonly identityFiles: Sourced[];
  readonly certificateFiles: Sourced[];
  identitiesOnly: boolean | undefined;
  identityAgent: Sourced | undefined;
  /** `none` is kept while reading: it blocks a later ProxyJump, then means no proxy. */
  proxyCommand: Sourced | undefined;
  jump: JumpState | undefined;
  connectTimeout: number | undefined;
  serverAliveInterval: number | undefined;
  serverAliveCountMax: number | undefined;
  /** Set by the first applying line only, which may list several files. */
  readonly userKnownHostsFiles: Sourced[];
  readonly globalKnownHostsFiles: Sourced[];
  strictHostKeyChecking: StrictHostKeyChecking | undefined;
  readonly others: OtherOption[];
  readonly notes: SshConfigNote[];
}

export function createOptionState(): OptionState {
  return {
    hostname: undefined,
    user: undefined,
    port: undefined,
    hostKeyAlias: undefined,
    ignoreUnknown: undefined,
    identityFiles: [],
    certificateFiles: [],
    identitiesOnly: undefined,
    identityAgent: undefined,
    proxyCommand: undefined,
    jump: undefined,
    connectTimeout: undefined,
    serverAliveInterval: undefined,
    serverAliveCountMax: undefined,
    userKnownHostsFiles: [],
    globalKnownHostsFiles: [],
    strictHostKeyChecking: undefined,
    others: [],
    notes: [],
  };
}

/** Records a note once: the second pass reads the same lines again. */
export function addNote(state: OptionState, note: SshConfigNote): void {
  const isKnown = state.notes.some(
    (known) =>
      known.message === note.message && known.at?.file === note.at?.file && known.at?.line === note.at?.line,
  );
  if (!isKnown) state.notes.push(note);
}
