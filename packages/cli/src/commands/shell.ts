import type { Command } from '../command.ts';
import type { CommandContext } from '../command-context.ts';
import type { ExitCodeValue } from '../exit-codes.ts';
import { resolveIdea } from '../idea-ref.ts';
import { startInputPump } from '../input-pump.ts';
import { ShellLink } from '../shell-link.ts';

type ShellCommand = Extract<Command, { kind: 'shell' }>;

/**
 * `catalyst shell <idea>` (issue 31): the idea's terminal (the page's, docs/protocol.md) in this one. At a terminal
 * stdin goes raw (Ctrl-C, Ctrl-D and the arrows go to the remote shell) and a window change is sent on (SIGWINCH,
 * stdout's `resize`); piped, what is read is typed, at the pace the socket sends it, and its end is Ctrl-D. A
 * dropped connection is re-attached to the same shell (`shell-link.ts`). The shell's `exit` (or Ctrl-D) ends the
 * command with the shell's exit code as 0 or 1.
 */
export async function runShell(context: CommandContext, command: ShellCommand): Promise<ExitCodeValue> {
  const id = await resolveIdea(context.api, command.idea);
  const { stdin, stdout } = process;
  const isRaw = stdin.isTTY;
  let isRawMode = false;
  let pump: ReturnType<typeof startInputPump> | undefined;
  const link = new ShellLink({
    ideaId: id,
    isInputPiped: !isRaw,
    openSocket: context.openTerminalSocket,
    size: () =>
      stdout.isTTY
        ? { cols: stdout.columns > 0 ? stdout.columns : 80, rows: stdout.rows > 0 ? stdout.rows : 24 }
        : { cols: 80, rows: 24 },
    // A terminal's writes are synchronous here (Node on POSIX); a pipe's are not, and a slow reader holds back.
    onOutput: (bytes) => stdout.write(bytes),
    onNotice: (line) => {
      // At a raw terminal the line starts below the shell's (a prompt, say), and a bare \n does not return.
      context.terminal.err(isRawMode ? `\r\n${line}\r\n` : `${line}\n`);
    },
    onReadiness: () => {
      // Raw from the shell's start only: until then Ctrl-C stops the command as usual.
      if (isRaw && !isRawMode && link.input.isReady()) {
        stdin.setRawMode(true);
        isRawMode = true;
      }
      pump?.update();
    },
  });
  const onResize = () => {
    link.resize();
  };
  const onDrain = () => {
    link.outputDrained();
  };
  try {
    pump = startInputPump(stdin, link.input);
    stdout.on('resize', onResize);
    stdout.on('drain', onDrain);
    return await link.run();
  } finally {
    stdout.off('resize', onResize);
    stdout.off('drain', onDrain);
    pump?.stop();
    if (isRaw && stdin.isRaw) stdin.setRawMode(false);
    link.stop();
  }
}
