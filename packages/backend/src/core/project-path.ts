/**
 * A path inside an idea's `project/` as the file browser takes it (issue 13): relative to `project/`, `/`-separated.
 * Checked here before anything reaches the host: not absolute, no `..`, no NUL, at most 4,096 bytes. Names are
 * otherwise taken as they are (quotes, newlines, `$(…)`, a leading `-` are all file names on Linux): they are never
 * put into a shell string, only passed as arguments after `--`, or as `./`-prefixed paths. A symlink that points
 * outside can only be told on the host, which resolves the path and checks it again.
 */

const MAX_PATH_BYTES = 4_096;

export type ProjectPath = { ok: true; segments: string[]; path: string } | { ok: false; problem: string };

/** `''`, `.` and `/`-only paths are `project/` itself (no segments); `a//b/./c/` is `a/b/c`. */
export function parseProjectPath(raw: string): ProjectPath {
  if (raw.includes('\0')) return { ok: false, problem: 'a path cannot hold a NUL character' };
  if (new TextEncoder().encode(raw).length > MAX_PATH_BYTES)
    return { ok: false, problem: `a path is at most ${String(MAX_PATH_BYTES)} bytes` };
  if (raw.startsWith('/')) return { ok: false, problem: 'the path must be relative to the project folder' };
  const segments = raw.split('/').filter((segment) => segment !== '' && segment !== '.');
  if (segments.includes('..')) return { ok: false, problem: 'the path cannot leave the project folder (..)' };
  return { ok: true, segments, path: segments.join('/') };
}

/** The path as one argument for a command run in `project/`: `./`-prefixed, so a leading `-` is not an option. */
export function projectArgument(path: { segments: readonly string[] }): string {
  return path.segments.length === 0 ? '.' : `./${path.segments.join('/')}`;
}
