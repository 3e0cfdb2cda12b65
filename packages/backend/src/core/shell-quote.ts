import { CatalystError } from './catalyst-error.ts';

/**
 * Upper bound for the string handed to the login shell. Linux caps one argv string at MAX_ARG_STRLEN = 128 KiB and
 * sshd passes our whole command as the single argument of `<shell> -c`; the field notes (ssh-field-notes.md §9)
 * advise staying near 90 KB, so 96 KiB leaves headroom. A bigger payload belongs in a file sent over SFTP.
 */
export const MAX_WRAPPED_COMMAND_BYTES = 96 * 1024;

// With the `u` flag a valid surrogate pair is one code point, so this matches only a lone surrogate.
const LONE_SURROGATE = /\p{Surrogate}/u;

/**
 * Why a string cannot travel byte-exact through a shell, or undefined if it can. argv and environment strings are
 * C strings, so a NUL would silently truncate them; a lone UTF-16 surrogate has no UTF-8 form and would be
 * replaced by U+FFFD.
 */
export function findUnsafeCharacter(s: string): string | undefined {
  if (s.includes('\0')) return 'contains a NUL byte';
  if (LONE_SURROGATE.test(s)) return 'contains a lone UTF-16 surrogate (not valid UTF-8)';
  return undefined;
}

/** Throws UNSAFE_ARGUMENT naming `what` if `s` cannot be passed byte-exact. */
export function assertShellSafe(s: string, what: string): void {
  const problem = findUnsafeCharacter(s);
  if (problem !== undefined) {
    throw new CatalystError('UNSAFE_ARGUMENT', `${what} ${problem}, which cannot be passed to a shell`, {
      details: { what },
    });
  }
}

/**
 * POSIX single-quoting: everything between single quotes is literal in sh, dash, bash and zsh, and a quote is
 * written as `'\''`. Never `$'…'` (dash and fish reject it, ssh-field-notes.md §9). Always quotes, so `''` for "".
 */
export function quoteShellArg(s: string): string {
  assertShellSafe(s, 'shell argument');
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

/** One POSIX sh command line in which every word, the program included, is quoted. */
export function renderShellCommand(argv: readonly string[]): string {
  if (argv.length === 0) {
    throw new CatalystError('INVALID_ARGUMENT', 'cannot render an empty argv as a shell command');
  }
  return argv.map(quoteShellArg).join(' ');
}

/**
 * A script of packages/backend/vm (core/vm-scripts.generated.ts) with its positional arguments, run as
 * `<shell> -c <script> <name> <args…>`: what a host runs, locally as that argv, over SSH through
 * wrapForAnyLoginShell. The arguments are shown by `ps` to every user of the host: never a secret, a run tag or a
 * message (those go on stdin); a project path (read-within.sh's) is no more visible there than in the script text
 * it used to be part of.
 */
export interface ShellCall {
  readonly script: string;
  /** `$0`, for the shell's own error messages. */
  readonly name: string;
  readonly args: readonly string[];
}

/** A ShellCall whose every argument can travel byte-exact (assertShellSafe: UNSAFE_ARGUMENT otherwise). */
export function createShellCall(script: string, name: string, args: readonly string[] = []): ShellCall {
  assertShellSafe(script, 'shell script');
  for (const arg of args) assertShellSafe(arg, 'shell argument');
  return { script, name, args: [...args] };
}

/** The arguments of a shell binary that runs `call`: `-c <script> <name> <args…>`. */
export function renderShellCallArgv(call: ShellCall): string[] {
  return ['-c', call.script, call.name, ...call.args];
}

/**
 * Wraps a POSIX sh script so that bash, dash, zsh and fish all run it identically as `<shell> -c <string>`: the
 * only text the login shell parses is fixed and the payload uses the base64 alphabet, inert in every shell
 * (ssh-field-notes.md §9: plain nested single quotes break under fish). Note `$(…)` drops trailing newlines, which
 * is harmless for a script. A ShellCall's arguments come first in the payload as `set -- '<arg>'…`, each
 * single-quoted (quoteShellArg), so the script finds them in `$1`… as under `sh -c`; only `$0` is `/bin/sh`.
 */
export function wrapForAnyLoginShell(script: string | ShellCall): string {
  const text = typeof script === 'string' ? script : renderWithArguments(script);
  assertShellSafe(text, 'shell script');
  const payload = Buffer.from(text, 'utf8').toString('base64');
  const wrapped = `exec /bin/sh -c 'eval "$(echo ${payload} | base64 -d)"'`;
  if (wrapped.length > MAX_WRAPPED_COMMAND_BYTES) {
    throw new CatalystError(
      'COMMAND_TOO_LONG',
      `the wrapped command is ${wrapped.length} bytes, over the ${MAX_WRAPPED_COMMAND_BYTES}-byte limit; ` +
        'send large payloads as a file instead of on the command line',
      { details: { reason: 'too-long', bytes: wrapped.length, limit: MAX_WRAPPED_COMMAND_BYTES } },
    );
  }
  return wrapped;
}

function renderWithArguments(call: ShellCall): string {
  if (call.args.length === 0) return call.script;
  return `set -- ${call.args.map(quoteShellArg).join(' ')}\n${call.script}`;
}
