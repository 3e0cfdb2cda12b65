import { execFile } from 'node:child_process';

export interface ToolResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunToolOptions {
  /** Exit codes that are answers rather than failures, e.g. 2 from `getent` for "no such key". */
  acceptCodes?: readonly number[];
  timeoutMs?: number;
}

/** Runs a system tool with an argument array; a failure carries the command, exit status and stderr. */
export function runTool(
  file: string,
  args: readonly string[],
  options: RunToolOptions = {},
): Promise<ToolResult> {
  const accepted = new Set([0, ...(options.acceptCodes ?? [])]);
  return new Promise((resolve, reject) => {
    execFile(
      file,
      args,
      { encoding: 'utf8', timeout: options.timeoutMs ?? 15_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
        if (code !== null && accepted.has(code)) {
          resolve({ code, stdout, stderr });
          return;
        }
        const status =
          code === null ? `signal ${error?.signal ?? 'none'} (${String(error?.code)})` : `exit ${code}`;
        reject(
          new Error(`${file} ${args.join(' ')} failed with ${status}: ${stderr.trim() || stdout.trim()}`, {
            cause: error,
          }),
        );
      },
    );
  });
}
