/**
 * The baseline: the same stand-in, with the same argv, in a bare ssh2 exec channel on its own connection to the
 * same sshd (no run wrapper, no backend, no WebSocket), its stdout read here with the backend's own stream
 * parser. Each text line is timestamped once parsed, as the WebSocket client timestamps a parsed frame.
 */
import { createUserMessage } from '../../packages/protocol/src/index.ts';
import { createStreamParser } from '../../packages/backend/src/core/stream-parser.ts';
import type { SshConnection } from '../../packages/backend/src/host/ssh/ssh-connection.ts';
import { nowMs } from './lines.ts';

/** The ssh2 exec channel, named without importing ssh2 (not a dependency of the bench). */
type ExecChannel = Extract<Awaited<ReturnType<SshConnection['exec']>>, { kind: 'opened' }>['channel'];

export interface RawExecOptions {
  connection: SshConnection;
  /** The login-shell command line that runs the stand-in. */
  command: string;
  prompt: string;
  onText: (text: string, arrivedAt: number) => void;
  timeoutMs: number;
}

export interface RawExecOutcome {
  readonly resultText: string | undefined;
  /** Non-JSON lines, stderr, an exit status other than 0: anything the stand-in should not have produced. */
  readonly problems: readonly string[];
}

export async function runRawExec(options: RawExecOptions): Promise<RawExecOutcome> {
  const opened = await options.connection.exec(options.command);
  if (opened.kind !== 'opened') {
    throw new Error(`raw exec failed: ${opened.kind === 'failed' ? opened.error.message : opened.message}`);
  }
  const channel = opened.channel;
  const problems: string[] = [];
  let resultText: string | undefined;
  const parser = createStreamParser({
    onEvent: (event) => {
      if (event.kind !== 'message') {
        problems.push(`stdout: ${event.kind}`);
        return;
      }
      const message = event.message;
      if (message.type === 'assistant') {
        for (const block of message.message.content)
          if (block.type === 'text') options.onText(block.text, nowMs());
      } else if (message.type === 'result') {
        resultText = message.subtype === 'success' ? message.result : undefined;
        // The backend closes stdin after the result (a run is one turn); so does the baseline.
        channel.end();
      }
    },
  });
  channel.on('data', (chunk: Buffer) => {
    parser.push(chunk);
  });
  channel.stderr.on('data', (chunk: Buffer) => problems.push(`stderr: ${chunk.toString('utf8').trim()}`));
  const exitCode = awaitClose(channel, options.timeoutMs);
  channel.write(`${JSON.stringify(createUserMessage(options.prompt))}\n`);
  const code = await exitCode;
  parser.end();
  if (code !== 0) problems.push(`exit status ${String(code)}`);
  return { resultText, problems };
}

function awaitClose(channel: ExecChannel, timeoutMs: number): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    let code: number | undefined;
    const timer = setTimeout(() => {
      channel.close();
      reject(new Error(`the raw exec did not end within ${String(timeoutMs)} ms`));
    }, timeoutMs);
    channel.on('exit', (exitCode: number | null) => (code = exitCode ?? undefined));
    channel.once('close', () => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}
