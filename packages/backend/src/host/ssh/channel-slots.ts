import type { SshPoolLimits } from './ssh-config.ts';
import type { SshConnection } from './ssh-connection.ts';

/**
 * The session slots of one pooled connection. sshd allows MaxSessions (default 10) channels per connection and
 * frees one only when its process has exited, i.e. at the channel's 'close' (ssh-field-notes.md §4). Runs get
 * `maxRunsPerConnection`; the slots above that stay free for control work: SFTP, kill commands, probes.
 */

/** `forward`: a direct-tcpip channel (a preview's request), which is not a session: no MaxSessions slot. */
export type ChannelKind = 'run' | 'control' | 'forward';

/** Above the run limit, for control channels: 8 runs + 2 = sshd's default MaxSessions (§4). */
const CONTROL_RESERVE = 2;

export interface Slot {
  readonly connection: SshConnection;
  channels: number;
  runs: number;
  runLimit: number;
  channelLimit: number;
  /** Open direct-tcpip channels: not counted in `channels`, but they keep the connection from idling out. */
  forwards: number;
  idleTimer: NodeJS.Timeout | undefined;
}

export function createSlot(connection: SshConnection, limits: SshPoolLimits): Slot {
  return {
    connection,
    channels: 0,
    runs: 0,
    runLimit: limits.maxRunsPerConnection,
    channelLimit: limits.maxRunsPerConnection + CONTROL_RESERVE,
    forwards: 0,
    idleTimer: undefined,
  };
}

export function hasRoomFor(slot: Slot, kind: ChannelKind): boolean {
  if (kind === 'forward') return slot.connection.isOpen();
  return (
    slot.connection.isOpen() &&
    slot.channels < slot.channelLimit &&
    (kind === 'control' || slot.runs < slot.runLimit)
  );
}

export function reserveSlot(slot: Slot, kind: ChannelKind): void {
  clearTimeout(slot.idleTimer);
  slot.idleTimer = undefined;
  if (kind === 'forward') {
    slot.forwards++;
    return;
  }
  slot.channels++;
  if (kind === 'run') slot.runs++;
}

export function releaseSlot(slot: Slot, kind: ChannelKind): void {
  if (kind === 'forward') {
    slot.forwards--;
    return;
  }
  slot.channels--;
  if (kind === 'run') slot.runs--;
}

/** Nothing open on the connection: it may be ended after the pool's idle time. */
export function isIdle(slot: Slot): boolean {
  return slot.channels === 0 && slot.forwards === 0;
}

/**
 * The server refused a channel: its MaxSessions is what this connection holds now, so mark it full rather than
 * retry it blindly (§4). Returns false when it holds nothing, i.e. the server refuses every session.
 */
export function learnSessionLimit(slot: Slot): boolean {
  if (slot.channels === 0) return false;
  slot.channelLimit = slot.channels;
  slot.runLimit = Math.min(slot.runLimit, Math.max(1, slot.channels - CONTROL_RESERVE));
  return true;
}
