import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { CatalystError } from '../../core/catalyst-error.ts';
import {
  parseReadWithinOutput,
  renderReadWithinScript,
  type ReadWithinRequest,
  type ReadWithinResult,
} from '../../core/read-within-shell.ts';
import type { OpenRawChannel, RawChannel } from '../raw-channel.ts';

/**
 * HostFiles.readWithin over SSH: core/read-within-shell.ts's script on a control channel (one round trip), its
 * binary stdout collected up to the file bytes asked for plus room for a large listing. The host's file time
 * limit applies from the call on, the wait for a channel included: past it the channel is torn down (the script
 * waits on nothing, so it ends by itself).
 */

/** Room for a directory's listing (about 40 bytes an entry) and a login shell's rc noise beside a file's bytes. */
const LISTING_BYTES = 16 * 1024 * 1024;
const STDERR_BYTES = 4 * 1024;

export async function readWithinOverSsh(
  open: OpenRawChannel,
  request: ReadWithinRequest,
  limits: { label: string; timeoutMs: number },
): Promise<ReadWithinResult> {
  const where = request.path === '' ? request.root : `${request.root}/${request.path}`;
  const marker = randomBytes(12).toString('hex');
  const deadline = startDeadline(where, limits);
  try {
    const channel = await deadline.open(open(renderReadWithinScript(request, marker)));
    channel.stdin.on('error', () => undefined);
    channel.stdin.end();
    const stdout = collect(channel.stdout, request.maxBytes + LISTING_BYTES);
    const stderr = collect(channel.stderr, STDERR_BYTES);
    const [end, out, err] = await Promise.race([
      Promise.all([channel.ended, stdout, stderr]),
      deadline.expired,
    ]);
    // The script's own last word says it finished (core/read-within-shell.ts); without it, a lost channel is why.
    if (end.kind === 'lost' && !out.bytes.subarray(-(marker.length + 16)).includes(marker)) {
      throw new CatalystError('CONNECTION_LOST', `read ${where}: ${end.message}`, {
        details: { host: limits.label, path: where },
      });
    }
    if (out.isCut) {
      throw new CatalystError('FILE_ERROR', `${where} lists too many entries to show`, {
        details: { path: where },
      });
    }
    const stderrText = err.bytes.toString('utf8');
    const code = end.kind === 'exited' ? end.code : null;
    return parseReadWithinOutput(out.bytes, { code, stderr: stderrText, marker }, request);
  } finally {
    deadline.cancel();
  }
}

interface Deadline {
  /** Rejects with HOST_TIMED_OUT once the limit has passed, after tearing down the channel if it is open. */
  readonly expired: Promise<never>;
  /** The channel, unless the limit passes first; one that opens after that is torn down as it arrives. */
  open(opening: Promise<RawChannel>): Promise<RawChannel>;
  cancel(): void;
}

/**
 * Started before the channel is asked for: the pool queues an open for as long as its channels are busy (stuck
 * SFTP sessions among them, sftp-client.ts), and the Files view must get its answer all the same.
 */
function startDeadline(where: string, limits: { label: string; timeoutMs: number }): Deadline {
  let channel: RawChannel | undefined;
  let hasExpired = false;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      hasExpired = true;
      channel?.destroy();
      reject(
        new CatalystError(
          'HOST_TIMED_OUT',
          `read ${where}: ${limits.label} did not answer within ${String(limits.timeoutMs)} ms`,
          { details: { host: limits.label, path: where, action: 'read', timeoutMs: limits.timeoutMs } },
        ),
      );
    }, limits.timeoutMs);
  });
  return {
    expired,
    open: (opening) => {
      opening.then(
        (opened) => {
          if (hasExpired) opened.destroy();
          else channel = opened;
        },
        () => undefined,
      );
      return Promise.race([opening, expired]);
    },
    cancel: () => {
      clearTimeout(timer);
    },
  };
}

/** Every byte up to `limit`, then the rest drained and dropped, so the channel can end. */
function collect(stream: Readable, limit: number): Promise<{ bytes: Buffer; isCut: boolean }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on('data', (chunk: unknown) => {
      if (!Buffer.isBuffer(chunk)) return;
      if (size < limit) chunks.push(chunk.subarray(0, limit - size));
      size += chunk.length;
    });
    const finish = () => {
      resolve({ bytes: Buffer.concat(chunks), isCut: size > limit });
    };
    stream.once('end', finish);
    stream.once('close', finish);
    stream.once('error', finish);
  });
}
