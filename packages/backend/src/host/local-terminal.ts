import { spawn } from 'node:child_process';
import { CatalystError } from '../core/catalyst-error.ts';
import { RUN_TAG_ENV } from '../core/run-wrapper.ts';
import { quoteShellArg } from '../core/shell-quote.ts';
import { renderTerminalShell } from '../core/terminal-shell.ts';
import type { HostTerminal, TerminalEnd, TerminalSpec } from './host.ts';
import { runLocalCommand } from './local-command.ts';
import { startTerminal } from './terminal-channel.ts';

/**
 * A terminal on this machine (issue 31) without a native module: util-linux's `script -qefc <command> /dev/null`
 * makes the pty and runs the terminal script in it (script(1) runs its command with `$SHELL -c`, so SHELL is
 * /bin/sh for it and the person's shell travels in CATALYST_TERMINAL_SHELL). script(1) has no way to pass a window
 * change on from a pipe, so a resize is `stty -F <tty> cols … rows …` from outside, which makes the kernel send the
 * shell's foreground job SIGWINCH as a pty master's resize would.
 */

const RESIZE_TIMEOUT_MS = 5_000;

export async function openLocalTerminal(
  spec: TerminalSpec,
  options: {
    killRun: (runTag: string) => Promise<void>;
    readyTimeoutMs: number;
    /** The allow-listed environment runs get (local-host.ts runnerEnvironment). */
    environment: NodeJS.ProcessEnv;
  },
): Promise<HostTerminal> {
  const call = renderTerminalShell(spec);
  const command = ['exec /bin/sh -c', quoteShellArg(call.script), call.name, ...call.args.map(quoteShellArg)];
  const { environment } = options;
  const child = spawn('script', ['-qefc', command.join(' '), '/dev/null'], {
    detached: true,
    stdio: ['pipe', 'pipe', 'ignore'],
    env: {
      ...environment,
      SHELL: '/bin/sh',
      CATALYST_TERMINAL_SHELL: environment.SHELL ?? '/bin/sh',
      TERM: 'xterm-256color',
      [RUN_TAG_ENV]: spec.runTag,
    },
    cwd: '/',
  });
  const spawned = new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', (error) => {
      reject(
        new CatalystError('RUN_START_FAILED', `the terminal could not start script(1): ${error.message}`, {
          cause: error,
        }),
      );
    });
  });
  const ended = new Promise<TerminalEnd>((settle) => {
    child.once('close', (code, signal) => {
      settle({ kind: 'exited', code, signal });
    });
  });
  await spawned;
  const resizes = createResizer();
  return startTerminal(
    {
      input: child.stdin,
      output: child.stdout,
      ended,
      destroy: () => {
        child.stdin.destroy();
        child.stdout.destroy();
        if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
          try {
            process.kill(-child.pid, 'SIGKILL');
          } catch {
            // The group is gone already.
          }
        }
      },
    },
    {
      runTag: spec.runTag,
      killRun: options.killRun,
      resize: resizes,
      readyTimeoutMs: options.readyTimeoutMs,
      label: 'local',
    },
  );
}

/** One `stty` at a time; a size asked for meanwhile replaces the one waiting (only the newest matters). */
function createResizer(): (tty: string, cols: number, rows: number) => void {
  let isBusy = false;
  let waiting: { tty: string; cols: number; rows: number } | undefined;
  const run = async (size: { tty: string; cols: number; rows: number }): Promise<void> => {
    isBusy = true;
    await runLocalCommand('stty', ['-F', size.tty, 'cols', String(size.cols), 'rows', String(size.rows)], {
      timeoutMs: RESIZE_TIMEOUT_MS,
    }).catch(() => undefined);
    isBusy = false;
    const next = waiting;
    waiting = undefined;
    if (next !== undefined) void run(next);
  };
  return (tty, cols, rows) => {
    if (isBusy) {
      waiting = { tty, cols, rows };
      return;
    }
    void run({ tty, cols, rows });
  };
}
