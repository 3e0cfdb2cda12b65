import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CWD_NOT_FOUND_EXIT_CODE,
  buildClaudeCommand,
  renderClaudeLoginShellCommand,
} from '../src/core/claude-command.ts';
import {
  MAX_WRAPPED_COMMAND_BYTES,
  createShellCall,
  findUnsafeCharacter,
  quoteForAnyShell,
  quoteShellArg,
  renderShellCommand,
  wrapForAnyLoginShell,
} from '../src/core/shell-quote.ts';

// The login shells sshd may run our string with (ssh-field-notes.md §9). Deliberately unconditional.
const LOGIN_SHELLS = ['/usr/bin/bash', '/usr/bin/dash', '/usr/bin/zsh', '/usr/bin/fish'] as const;
// The decoded script is parsed by /bin/sh: dash on Debian, bash in sh mode on RHEL. Run it bare in each shell too,
// started as `sh` so bash enters POSIX mode and zsh emulates sh, as they would when installed as /bin/sh.
const SCRIPT_SHELLS = ['/usr/bin/dash', '/usr/bin/bash', '/usr/bin/zsh'] as const;

// coreutils printf: every argument followed by a NUL, so the output is the argv byte for byte.
const PRINT_ARGS = ['/usr/bin/printf', '%s\\0'] as const;
// What the wrapped script may take of MAX_WRAPPED_COMMAND_BYTES, the wrapper's own words left out.
const SCRIPT_BUDGET_BYTES = MAX_WRAPPED_COMMAND_BYTES - 100;
const STRINGS_PER_RUN = 200;
const RUNS = 50;

interface ShellRun {
  readonly shell: string;
  readonly command: string;
  readonly argv0?: string;
}

interface ShellResult {
  readonly exitCode: number | string | null;
  readonly stdout: Buffer;
  readonly stderr: string;
}

// Every shell runs inside this throwaway directory, with HOME pointing there too: if quoting ever regresses, the
// generated strings become shell code (redirections, `$(id)`) and must not litter the repository or the real home.
let sandbox = '';

beforeAll(async () => {
  sandbox = await mkdtemp(join(tmpdir(), 'catalyst-shell-quoting-'));
});

afterAll(async () => {
  if (sandbox !== '') await rm(sandbox, { recursive: true, force: true });
});

/**
 * Runs `<shell> -c <command>` as sshd does (argv0 is the plain shell name, ssh-field-notes.md §9), with no shell of
 * ours in between.
 */
function runShell(shell: string, command: string, argv0 = basename(shell)): Promise<ShellResult> {
  expect(sandbox).not.toBe('');
  return new Promise((resolve) => {
    const options = {
      argv0,
      cwd: sandbox,
      env: { ...process.env, HOME: sandbox },
      encoding: 'buffer' as const,
      maxBuffer: 64 * 1024 * 1024,
      timeout: 10_000,
    };
    const child = execFile(shell, ['-c', command], options, (error, stdout, stderr) => {
      resolve({
        exitCode: error ? (error.code ?? error.signal ?? null) : 0,
        stdout,
        stderr: stderr.toString('utf8'),
      });
    });
    // sshd gives the command an open stdin; closing ours keeps a broken script from waiting on it forever.
    child.stdin?.end();
  });
}

function encodeNulTerminated(values: readonly string[]): Buffer {
  return Buffer.concat(values.flatMap((value) => [Buffer.from(value, 'utf8'), Buffer.from([0])]));
}

/** Splits strings into printf invocations whose rendered script stays under the wrap limit. */
function chunkBySize(strings: readonly string[]): string[][] {
  const chunks: string[][] = [];
  let current: string[] = [];
  let size = Buffer.byteLength(quoteForAnyShell(renderShellCommand(PRINT_ARGS)));
  for (const s of strings) {
    // Quoted twice, as the script's word and then as the login shell's; quoting the parts apart costs no less.
    const cost = Buffer.byteLength(quoteForAnyShell(quoteShellArg(s))) + 3;
    if (current.length > 0 && size + cost > SCRIPT_BUDGET_BYTES) {
      chunks.push(current);
      current = [];
      size = Buffer.byteLength(quoteForAnyShell(renderShellCommand(PRINT_ARGS)));
    }
    current.push(s);
    size += cost;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

function describeMismatch(result: ShellResult, expected: readonly string[]): string | undefined {
  if (result.exitCode !== 0 || result.stderr !== '') {
    return `exit ${String(result.exitCode)}, stderr ${JSON.stringify(result.stderr.slice(0, 2000))}`;
  }
  if (result.stdout.equals(encodeNulTerminated(expected))) return undefined;
  const got = result.stdout.toString('utf8').split('\0');
  const index = expected.findIndex((s, i) => got[i] !== s);
  if (index === -1) {
    return `expected ${expected.length} arguments, output has ${got.length - 1} NUL-terminated fields`;
  }
  const [sent, arrived] = [JSON.stringify(expected[index]), JSON.stringify(got[index])];
  return `argument ${index} of ${expected.length} arrived as ${arrived}, sent ${sent}`;
}

// Throws a plain Error with the exact difference: the fast-check reporter below shows only this message.
async function expectArgvRoundTrip(run: ShellRun, expected: readonly string[]): Promise<void> {
  const problem = describeMismatch(await runShell(run.shell, run.command, run.argv0), expected);
  if (problem !== undefined) throw new Error(`${run.argv0 ?? run.shell}: ${problem}`);
}

/** Reports the seed and the failure, not the whole 200-string counterexample. */
function reportConcisely(details: fc.RunDetails<[string[]]>): void {
  if (!details.failed) return;
  const where = `seed ${details.seed}, path ${details.counterexamplePath ?? '(none)'}`;
  const cause =
    details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
  throw new Error(`shell quoting property failed after ${details.numRuns} runs (${where}): ${cause}`);
}

/** Every string through every login shell (wrapped) and every /bin/sh candidate (the bare script). */
async function expectAllShellsRoundTrip(strings: readonly string[]): Promise<void> {
  const runs = chunkBySize(strings).flatMap((chunk) => {
    const script = renderShellCommand([...PRINT_ARGS, ...chunk]);
    const wrapped = wrapForAnyLoginShell(script);
    // The same strings as the positional arguments of a VM script (a ShellCall: words after the script).
    const call = wrapForAnyLoginShell(
      createShellCall(`exec ${renderShellCommand(PRINT_ARGS)} "$@"`, 'x', chunk),
    );
    return [
      ...LOGIN_SHELLS.map((shell) => expectArgvRoundTrip({ shell, command: wrapped }, chunk)),
      ...LOGIN_SHELLS.map((shell) => expectArgvRoundTrip({ shell, command: call }, chunk)),
      ...SCRIPT_SHELLS.map((shell) => expectArgvRoundTrip({ shell, command: script, argv0: 'sh' }, chunk)),
    ];
  });
  await Promise.all(runs);
}

const SHELL_SPECIALS = [
  // One-character specials (all ASCII, so splitting by code point is exact).
  ...Array.from(`'"$\`\\\n\t\r!*?~;|&<>(){}[]%# =^:,@-+`),
  "'\\''",
  '$(id)',
  '${HOME}',
  '$HOME',
  '`id`',
  "$'x'",
  '\\n',
  '\\0',
  '\\\\',
  '%s',
  '%b',
  '-n',
  '-e',
  '--',
  '!!',
  '~root',
  '\x1b[31m',
  '\x7f',
  '\u00a0',
  '\u2028',
  '\ufeff',
  '\u202e',
  '\u200d',
  'e\u0301',
  '\u0301',
  '🎉',
  '👨‍👩‍👧',
  '🇫🇷',
  'é',
  '中文',
  '\u{10ffff}',
];

const printableAscii = fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code));
const controlChar = fc.integer({ min: 1, max: 0x1f }).map((code) => String.fromCharCode(code));
const nastyUnit = fc.oneof(
  { weight: 4, arbitrary: printableAscii },
  { weight: 4, arbitrary: fc.constantFrom(...SHELL_SPECIALS) },
  { weight: 1, arbitrary: controlChar },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }) },
);
// NUL cannot be in argv at all; quoteShellArg rejects it (covered by the unit tests).
const isArgvSafe = (s: string): boolean => findUnsafeCharacter(s) === undefined;

const nastyString = fc.oneof(
  { weight: 1, arbitrary: fc.constant('') },
  { weight: 12, arbitrary: fc.string({ unit: nastyUnit, maxLength: 40 }) },
  { weight: 3, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }).filter(isArgvSafe) },
  { weight: 1, arbitrary: fc.string({ unit: nastyUnit, minLength: 1000, maxLength: 4000 }) },
);

describe('quoted arguments arrive byte-exact through real shells', () => {
  it('passes every ASCII character 1-127, alone and all together', async () => {
    const singles = Array.from({ length: 127 }, (_, i) => String.fromCharCode(i + 1));
    await expectAllShellsRoundTrip([...singles, singles.join(''), '', ...SHELL_SPECIALS]);
  });

  // Spawns 30,000 shells: on a 2-core machine beside the other worker's browser tests and installs that takes more
  // than the 30 s it once had; the time limit only keeps a failure's shrinking inside the test's own timeout.
  it(
    `passes ${RUNS * STRINGS_PER_RUN} generated strings through bash, dash, zsh and fish`,
    { timeout: 150_000 },
    async () => {
      let tested = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.array(nastyString, { minLength: STRINGS_PER_RUN, maxLength: STRINGS_PER_RUN }),
          async (strings) => {
            await expectAllShellsRoundTrip(strings);
            tested += strings.length;
          },
        ),
        // Shrinking a 200-string batch spawns shells at every step; cap it so a failure reports well inside the timeout.
        {
          numRuns: RUNS,
          interruptAfterTimeLimit: 120_000,
          markInterruptAsFailure: true,
          reporter: reportConcisely,
        },
      );
      expect(tested).toBeGreaterThanOrEqual(10_000);
    },
  );

  it('runs a command of the maximum wrapped size in every login shell', async () => {
    // What the wrapped command costs beyond its 2-byte characters, measured with one of them.
    const overhead = Buffer.byteLength(wrapForAnyLoginShell(renderShellCommand([...PRINT_ARGS, 'é']))) - 2;
    const big = 'é'.repeat(Math.floor((MAX_WRAPPED_COMMAND_BYTES - overhead) / 2));
    const command = wrapForAnyLoginShell(renderShellCommand([...PRINT_ARGS, big]));
    expect(Buffer.byteLength(command)).toBeGreaterThan(MAX_WRAPPED_COMMAND_BYTES - 2);
    await Promise.all(LOGIN_SHELLS.map((shell) => expectArgvRoundTrip({ shell, command }, [big])));
  });
});

describe('the rendered claude script in real shells', () => {
  let root = '';
  let fakeClaude = '';
  let project = '';

  beforeAll(async () => {
    root = await mkdtemp(join(sandbox, 'claude-script-'));
    project = join(root, `project with spaces 'single' "double" $HOME \`id\` é🎉 line\nbreak`);
    await mkdir(project);
    await mkdir(join(root, 'bin dir'));
    fakeClaude = join(root, 'bin dir', "fake 'claude'");
    // Prints where it runs, the exported variables and its argv, NUL-terminated.
    await writeFile(
      fakeClaude,
      `#!/bin/sh\nprintf '%s\\0' "$PWD" "$CATALYST_TRICKY" "$CATALYST_EMPTY" "$@"\n`,
    );
    await chmod(fakeClaude, 0o755);
  });

  it('cds into a directory with spaces and quotes, exports env, and execs the argv', async () => {
    const everyAscii = Array.from({ length: 127 }, (_, i) => String.fromCharCode(i + 1)).join('');
    const tricky = `it's "x" $HOME \`id\` \\ ; | & \n\t é🎉 e\u0301 %s ${everyAscii}`;
    const command = buildClaudeCommand({
      claudePath: fakeClaude,
      cwd: project,
      model: "we'ird $model",
      addDirs: [project],
      allowedTools: ['Bash(git *)', 'Read'],
      env: { CATALYST_TRICKY: tricky, CATALYST_EMPTY: '' },
    });
    const wrapped = renderClaudeLoginShellCommand(command);
    const expected = [project, tricky, '', ...command.argv.slice(1)];
    await Promise.all(
      LOGIN_SHELLS.map((shell) => expectArgvRoundTrip({ shell, command: wrapped }, expected)),
    );
  });

  it('exits with CWD_NOT_FOUND_EXIT_CODE when the project directory is missing', async () => {
    const command = buildClaudeCommand({ claudePath: fakeClaude, cwd: join(root, "missing 'dir'") });
    const wrapped = renderClaudeLoginShellCommand(command);
    for (const shell of LOGIN_SHELLS) {
      const result = await runShell(shell, wrapped);
      expect({ shell, exitCode: result.exitCode, stdout: result.stdout.length }).toEqual({
        shell,
        exitCode: CWD_NOT_FOUND_EXIT_CODE,
        stdout: 0,
      });
      expect(result.stderr).toMatch(/missing 'dir'/);
    }
  });
});
