import { spawn } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join } from 'node:path';

/**
 * The tools of the scripted claude (scripted-claude.ts), run for real on this machine in the idea's project: Bash
 * as `sh -c` in a process group of its own (stopped with the turn), Write and Read on the files, AskUserQuestion's
 * result as the CLI words it for the model (claude-cli-protocol.md §8.3). Tool results as the CLI prints them.
 */

export interface ToolOutcome {
  content: string;
  isError: boolean;
  /** The line's `tool_use_result`. */
  detail: unknown;
}

export interface ToolRun {
  readonly result: Promise<ToolOutcome>;
  stop(): void;
}

const done = (outcome: ToolOutcome): ToolRun => ({ result: Promise.resolve(outcome), stop: () => undefined });

export function runTool(
  name: string,
  input: Record<string, unknown>,
  where: { cwd: string; tag: string },
): ToolRun {
  switch (name) {
    case 'AskUserQuestion':
      return done(questionsAnswered(input));
    case 'Bash':
      return input['run_in_background'] === true
        ? inBackground(String(input['command']), where)
        : bash(String(input['command']), where);
    case 'Write':
      return fileTool(async () => {
        const path = absolute(String(input['file_path']), where.cwd);
        await mkdir(dirname(path), { recursive: true });
        await writeFile(path, String(input['content']));
        return {
          content: `File created successfully at: ${path}`,
          isError: false,
          detail: { type: 'create', filePath: path },
        };
      });
    case 'Read':
      return fileTool(async () => {
        const path = absolute(String(input['file_path']), where.cwd);
        const text = await readFile(path, 'utf8');
        return {
          content: text,
          isError: false,
          detail: { type: 'text', file: { filePath: path, content: text } },
        };
      });
    default:
      return done({
        content: `<tool_use_error>Error: the in-process host does not run ${name}</tool_use_error>`,
        isError: true,
        detail: `Error: no ${name}`,
      });
  }
}

function absolute(path: string, cwd: string): string {
  return isAbsolute(path) ? path : join(cwd, path);
}

function fileTool(action: () => Promise<ToolOutcome>): ToolRun {
  return {
    result: action().catch((error: unknown) => ({
      content: `<tool_use_error>${error instanceof Error ? error.message : String(error)}</tool_use_error>`,
      isError: true,
      detail: `Error: ${String(error)}`,
    })),
    stop: () => undefined,
  };
}

/** §8.3: what the model is told of the answers (none: "The user did not answer the questions."). */
function questionsAnswered(input: Record<string, unknown>): ToolOutcome {
  const answers = input['answers'];
  if (typeof answers !== 'object' || answers === null || Object.keys(answers).length === 0)
    return { content: 'The user did not answer the questions.', isError: false, detail: input };
  const annotations = (input['annotations'] ?? {}) as Record<string, { notes?: unknown } | undefined>;
  const pairs = Object.entries(answers as Record<string, unknown>).map(([question, answer]) => {
    const value = Array.isArray(answer) ? answer.join(', ') : String(answer);
    const notes = annotations[question]?.notes;
    return `"${question}"="${value}"${typeof notes === 'string' ? ` notes: ${notes}` : ''}`;
  });
  return {
    content: `Your questions have been answered: ${pairs.join(', ')}. You can now continue with these answers in mind.`,
    isError: false,
    detail: input,
  };
}

function shell(command: string, where: { cwd: string; tag: string }, stdio: 'pipe' | 'ignore') {
  return spawn('/bin/sh', ['-c', command], {
    cwd: where.cwd,
    env: { ...process.env, CATALYST_RUN_TAG: where.tag },
    detached: true,
    stdio: ['ignore', stdio, stdio],
  });
}

/**
 * A background command (§3.8): it goes on after the call returns, a process of the run (its tag) like the CLI's,
 * which the run's stop ends (Host.killRun), not the turn's end.
 */
function inBackground(command: string, where: { cwd: string; tag: string }): ToolRun {
  const child = shell(command, where, 'ignore');
  child.on('error', () => undefined);
  child.unref();
  const id = `bash_${String(child.pid)}`;
  return done({
    content: `Command running in background with ID: ${id}`,
    isError: false,
    detail: { stdout: '', stderr: '', interrupted: false, isImage: false, backgroundTaskId: id },
  });
}

function bash(command: string, where: { cwd: string; tag: string }): ToolRun {
  const child = shell(command, where, 'pipe');
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const result = new Promise<ToolOutcome>((resolve) => {
    child.on('error', (error) => {
      resolve({ content: String(error), isError: true, detail: `Error: ${String(error)}` });
    });
    child.on('close', (code, signal) => {
      const text = output.trimEnd();
      const detail = { stdout: output, stderr: '', interrupted: signal !== null, isImage: false };
      if (code === 0)
        resolve({ content: text === '' ? '(Bash completed with no output)' : text, isError: false, detail });
      else resolve({ content: `Exit code ${String(code ?? 137)}\n${text}`.trimEnd(), isError: true, detail });
    });
  });
  return {
    result,
    stop() {
      if (child.pid === undefined || child.exitCode !== null) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    },
  };
}
