import type { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import type { ClientChannel } from 'ssh2';
import { describe, expect, it } from 'vitest';
import { toRawChannel } from './ssh-raw-channel.ts';

/**
 * A channel object shaped as ssh2's after it has emitted 'exit' (its `_exit` record set, as ssh2's client does in
 * the same step) and before anyone listened: what the opener hands on when the exit status arrived in the same
 * network read as the channel's opening.
 */
function channelThatExitedEarly(exit: { code: number | null; signal?: string }): ClientChannel {
  const channel = Object.assign(new PassThrough(), {
    stderr: new PassThrough(),
    _exit: { code: exit.code, signal: exit.signal, dump: undefined, desc: undefined },
  });
  return channel as unknown as ClientChannel;
}

describe('the SSH raw channel', () => {
  it('takes an exit status ssh2 recorded before the channel was handed on', async () => {
    const channel = channelThatExitedEarly({ code: 3 });
    const raw = toRawChannel(channel, undefined);
    (channel as unknown as EventEmitter).emit('close');
    expect(await raw.ended).toEqual({ kind: 'exited', code: 3, signal: null });
  });

  it('takes a signal recorded the same way', async () => {
    const channel = channelThatExitedEarly({ code: null, signal: 'SIGKILL' });
    const raw = toRawChannel(channel, undefined);
    (channel as unknown as EventEmitter).emit('close');
    expect(await raw.ended).toEqual({ kind: 'exited', code: null, signal: 'SIGKILL' });
  });

  it('without any status, the channel was lost', async () => {
    const channel = Object.assign(new PassThrough(), { stderr: new PassThrough() });
    const raw = toRawChannel(channel as unknown as ClientChannel, undefined);
    channel.emit('close');
    expect(await raw.ended).toMatchObject({ kind: 'lost' });
  });
});
