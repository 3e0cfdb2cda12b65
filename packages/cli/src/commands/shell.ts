import { TerminalServerFrameSchema, type TerminalClientFrame } from '@catalyst/protocol';
import type { RawData, WebSocket } from 'ws';
import { CliError } from '../cli-error.ts';
import type { Command } from '../command.ts';
import type { CommandContext } from '../command-context.ts';
import { ExitCode, type ExitCodeValue } from '../exit-codes.ts';
import { resolveIdea } from '../idea-ref.ts';

type ShellCommand = Extract<Command, { kind: 'shell' }>;

/** Ctrl-D: what a shell reads as the end of its input at the start of a line. */
const END_OF_INPUT = Buffer.from([4]);

/**
 * `catalyst shell <idea>` (issue 31): the idea's terminal (the page's, docs/protocol.md) in this one. At a terminal
 * stdin goes raw (Ctrl-C, Ctrl-D and the arrows go to the remote shell) and a window change is sent on (SIGWINCH,
 * stdout's `resize`); piped, what is read is typed, and its end is Ctrl-D. The shell's `exit` (or Ctrl-D) ends the
 * command with the shell's exit code as 0 or 1.
 */
export async function runShell(context: CommandContext, command: ShellCommand): Promise<ExitCodeValue> {
  const id = await resolveIdea(context.api, command.idea);
  const socket = await context.openTerminalSocket();
  const { stdin, stdout } = process;
  const size = () => ({
    cols: stdout.columns > 0 ? stdout.columns : 80,
    rows: stdout.rows > 0 ? stdout.rows : 24,
  });
  const sendFrame = (frame: TerminalClientFrame) => {
    socket.send(JSON.stringify(frame));
  };
  const onResize = () => {
    sendFrame({ type: 'resize', ...size() });
  };
  const onInput = (chunk: Buffer) => {
    socket.send(chunk, { binary: true });
  };
  const onEnd = () => {
    socket.send(END_OF_INPUT, { binary: true });
  };
  const isRaw = stdin.isTTY;
  try {
    sendFrame({ type: 'open', ideaId: id, ...(stdout.isTTY ? size() : { cols: 80, rows: 24 }) });
    return await followShell(socket, () => {
      if (isRaw) stdin.setRawMode(true);
      stdin.on('data', onInput);
      stdin.once('end', onEnd);
      stdin.resume();
      stdout.on('resize', onResize);
    });
  } finally {
    stdout.off('resize', onResize);
    stdin.off('data', onInput);
    stdin.off('end', onEnd);
    if (isRaw) stdin.setRawMode(false);
    stdin.pause();
    socket.close();
  }
}

/** Output to stdout until the shell ends; `start` once the terminal is this socket's. */
function followShell(socket: WebSocket, start: () => void): Promise<ExitCodeValue> {
  return new Promise((resolve, reject) => {
    socket.on('message', (data: RawData, isBinary: boolean) => {
      const bytes = Buffer.isBuffer(data)
        ? data
        : Buffer.concat(Array.isArray(data) ? data : [Buffer.from(data)]);
      if (isBinary) {
        process.stdout.write(bytes);
        return;
      }
      const parsed = TerminalServerFrameSchema.safeParse(safeJson(bytes.toString('utf8')));
      if (!parsed.success) return;
      const frame = parsed.data;
      if (frame.type === 'ready') start();
      else if (frame.type === 'ended') {
        resolve(frame.reason === 'exited' && frame.exitCode === 0 ? ExitCode.completed : ExitCode.failed);
        if (frame.reason !== 'exited') process.stderr.write(`\ncatalyst: ${frame.message}\n`);
      } else reject(new CliError(frame.code, frame.message));
    });
    socket.once('close', () => {
      reject(
        new CliError(
          'CONNECTION_LOST',
          'The connection to Catalyst was lost; the terminal ends within a minute.',
        ),
      );
    });
  });
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
