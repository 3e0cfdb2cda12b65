import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { FINISHED, type JobBehaviour, type JobOutput, type JobSpec } from './jobs.ts';

/**
 * A job of the in-process host that is not claude (a checkpoint's git, the ideas root's claim, a preview's dev
 * server): a plain process on this machine in a process group of its own, with no wrapper around it. Its stop is
 * TERM to the group; what it starts outside the group is not followed, as no test of this tier starts any.
 */
export function localJob(spec: JobSpec, output: JobOutput): JobBehaviour {
  const [program = '', ...args] = spec.argv;
  if (!existsSync(spec.cwd)) {
    output.err(`cd: ${spec.cwd}: No such file or directory\n`);
    output.exit(1, 'cwd');
    return FINISHED;
  }
  const child = spawn(program, args, {
    cwd: spec.cwd,
    env: { ...process.env, ...spec.env, CATALYST_RUN_TAG: spec.tag },
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdin.on('error', () => undefined);
  child.stdout.on('data', (chunk: Buffer) => {
    output.out(chunk);
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output.err(chunk);
  });
  child.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') output.exit(127, 'not_found');
    else output.exit(126);
  });
  child.on('close', (code, signal) => {
    output.exit(code ?? (signal === null ? 1 : 128 + signalNumber(signal)));
  });
  const signalGroup = (name: NodeJS.Signals) => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, name);
    } catch {
      // Gone already.
    }
  };
  return {
    line: (text) => child.stdin.write(`${text}\n`),
    endInput: () => child.stdin.end(),
    interrupt: () => {
      if (child.pid !== undefined) process.kill(child.pid, 'SIGINT');
    },
    stop: () => {
      signalGroup('SIGTERM');
      setTimeout(() => {
        signalGroup('SIGKILL');
      }, 1_000).unref();
      // Its end comes once the process has exited (`close`), with the stop's reason.
      return child.exitCode === null && child.signalCode === null;
    },
  };
}

function signalNumber(signal: NodeJS.Signals): number {
  return signal === 'SIGKILL' ? 9 : signal === 'SIGINT' ? 2 : 15;
}
