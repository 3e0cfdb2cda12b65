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
 * A word every login shell sshd may run (bash, dash, zsh and fish, ssh-field-notes.md §9) reads as `s`, byte for
 * byte: single-quoted runs, with each run of `'` and `\` double-quoted between them. POSIX single quotes take `\`
 * literally where fish's read `\\` as one; inside double quotes both read `\\` as `\` and `'` as itself. No empty
 * `''` is written but for the empty string (zsh's RC_QUOTES reads `''` inside quotes as a quote).
 */
export function quoteForAnyShell(s: string): string {
  assertShellSafe(s, 'shell argument');
  if (s === '') return "''";
  return s
    .split(/(['\\]+)/)
    .filter((part) => part !== '')
    .map((part) => (/^['\\]/.test(part) ? `"${part.replaceAll('\\', '\\\\')}"` : `'${part}'`))
    .join('');
}

/**
 * Wraps a POSIX sh script so that bash, dash, zsh and fish all run it identically as `<shell> -c <string>`:
 * `exec /bin/sh -c <script> <name> <args…>`, each word quoted by quoteForAnyShell (plain nested single quotes break
 * under fish, §9), so the script finds its arguments in `$1`… and its name in `$0` as under a local `sh -c`. The
 * login shell execs /bin/sh at once: one shell of its own and no other process.
 */
export function wrapForAnyLoginShell(script: string | ShellCall): string {
  const call = typeof script === 'string' ? { script, name: 'sh', args: [] } : script;
  const words = [call.script, call.name, ...call.args].map(quoteForAnyShell);
  const wrapped = `exec /bin/sh -c ${words.join(' ')}`;
  const bytes = Buffer.byteLength(wrapped, 'utf8');
  if (bytes > MAX_WRAPPED_COMMAND_BYTES) {
    throw new CatalystError(
      'COMMAND_TOO_LONG',
      `the wrapped command is ${bytes} bytes, over the ${MAX_WRAPPED_COMMAND_BYTES}-byte limit; ` +
        'send large payloads as a file instead of on the command line',
      { details: { reason: 'too-long', bytes, limit: MAX_WRAPPED_COMMAND_BYTES } },
    );
  }
  return wrapped;
}
