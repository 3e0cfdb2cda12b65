import { CatalystError } from '../../core/catalyst-error.ts';
import type { Readable } from 'node:stream';
import type { ShellCall } from '../../core/shell-quote.ts';
import type { OpenRawChannel, RawChannelEnd } from '../raw-channel.ts';

/**
 * A short script on a control channel, its output collected: for the kill-by-tag script and the sweep, which are
 * the cleanup itself and so run outside the run wrapper. A deadline tears the channel down; closing it is enough here
 * because the script only signals and waits, it starts nothing that could outlive it.
 */

export interface ControlResult {
  stdout: string;
  stderr: string;
  end: RawChannelEnd;
}

const OUTPUT_LIMIT = 64 * 1024;

export async function runControlScript(
  open: OpenRawChannel,
  call: ShellCall,
  options: { timeoutMs: number; what: string; input?: string },
): Promise<ControlResult> {
  const channel = await open(call);
  // A script that exits without reading its stdin makes the write fail (EPIPE locally); its end tells the rest.
  channel.stdin.on('error', () => undefined);
  // Input (the kill script's run tag) goes on stdin: a command line is visible in `ps` to every user of the VM.
  channel.stdin.end(options.input);
  const stdout = collectText(channel.stdout);
  const stderr = collectText(channel.stderr);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      // The channel's 'close' waits for the remote process (§2); do not wait for it, it ends by itself.
      channel.destroy();
      reject(
        new CatalystError('CONNECTION_LOST', `${options.what} did not finish within ${options.timeoutMs} ms`),
      );
    }, options.timeoutMs);
  });
  try {
    const end = await Promise.race([channel.ended, deadline]);
    return { stdout: await stdout, stderr: await stderr, end };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Reads with 'data' events, not `for await`: the async iterator destroys the stream when it ends, and ssh2's
 * destroy() closes the whole channel, which can cost the exit status still on its way.
 */
function collectText(stream: Readable): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on('data', (chunk: unknown) => {
      // ssh2 streams have no encoding set; past the limit, keep reading so the channel drains.
      if (!Buffer.isBuffer(chunk) || size >= OUTPUT_LIMIT) return;
      chunks.push(chunk);
      size += chunk.length;
    });
    const finish = () => {
      resolve(Buffer.concat(chunks).toString('utf8'));
    };
    stream.once('end', finish);
    stream.once('close', finish);
    stream.once('error', finish);
  });
}
