import type { ClientChannel } from 'ssh2';
import { z } from 'zod';
import { wrapForAnyLoginShell } from '../../core/shell-quote.ts';
import type { OpenRawChannel, RawChannel, RawChannelEnd } from '../raw-channel.ts';
import type { SshConnection } from './ssh-connection.ts';
import type { ChannelKind, SshPool } from './ssh-pool.ts';

/**
 * The SSH half of a run: the wrapper script in an ssh2 exec channel, no pty (ssh-field-notes.md §2), sent as
 * `exec /bin/sh -c <script> <name> <args…>` (wrapForAnyLoginShell: every word quoted for any login shell) so that
 * bash, dash, zsh and fish all run it alike (§9). The exit status comes from the channel's 'exit'; the run is over at 'close', after stdout has drained.
 */

export function createSshOpenRawChannel(pool: SshPool, kind: ChannelKind = 'run'): OpenRawChannel {
  return async (call) => {
    const command = wrapForAnyLoginShell(call);
    const via: { connection?: SshConnection } = {};
    const channel = await pool.open(kind, (connection) => {
      via.connection = connection;
      return connection.exec(command);
    });
    return toRawChannel(channel, via.connection);
  };
}

export function toRawChannel(channel: ClientChannel, connection: SshConnection | undefined): RawChannel {
  let exit: RawChannelEnd | undefined;
  // ssh2 emits (code) for exit-status and (null, 'SIG…', coreDumped, message) for exit-signal.
  channel.on('exit', (...args: unknown[]) => {
    const [code, signal] = args;
    exit = {
      kind: 'exited',
      code: typeof code === 'number' ? code : null,
      signal: typeof signal === 'string' ? signal : null,
    };
  });
  const ended = new Promise<RawChannelEnd>((resolve) => {
    channel.once('close', () => {
      const status = exit ?? recordedExit(channel);
      if (status !== undefined) {
        resolve(status);
        return;
      }
      void lostReason(connection).then((message) => {
        resolve({ kind: 'lost', message });
      });
    });
  });
  return {
    stdin: channel,
    stdout: channel,
    stderr: channel.stderr,
    ended,
    destroy: () => {
      // EOF then CLOSE: the wrapper's watchdog reads EOF as cancel (§3b). ssh2 emits 'close' only once stdout
      // has ended, so whatever nobody reads any more is drained.
      channel.destroy();
      channel.resume();
      channel.stderr.resume();
    },
  };
}

/**
 * A channel that closes without an exit status lost its connection: ssh2 closes every channel when the socket
 * goes (§4), after the connection's own 'close', so its reason is known by now.
 */
async function lostReason(connection: SshConnection | undefined): Promise<string> {
  const fallback = 'the SSH channel closed without an exit status';
  if (connection === undefined) return fallback;
  const reason = await Promise.race([connection.lost, Promise.resolve(undefined)]);
  return reason === undefined ? fallback : `the SSH connection was lost: ${reason}`;
}

/**
 * ssh2 keeps a channel's exit status on the channel (`_exit`) as it emits 'exit'. When the status comes in the same
 * network read as the channel's opening, ssh2 emits 'exit' before the opener's promise has handed the channel on,
 * so before any listener here: a short script then read as "closed without an exit status" (seen once in about
 * 300 quick file reads). The record is read at 'close' when no 'exit' was heard.
 */
const RecordedExitSchema = z.looseObject({
  _exit: z.looseObject({ code: z.number().int().nullable().optional(), signal: z.string().optional() }),
});

function recordedExit(channel: ClientChannel): RawChannelEnd | undefined {
  const parsed = RecordedExitSchema.safeParse(channel);
  if (!parsed.success) return undefined;
  const { code, signal } = parsed.data._exit;
  if (code === undefined) return undefined;
  return { kind: 'exited', code, signal: signal ?? null };
}
