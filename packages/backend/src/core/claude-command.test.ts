import { describe, expect, it } from 'vitest';
import { captureCatalystError } from './capture-error.ts';
import {
  CWD_NOT_FOUND_EXIT_CODE,
  buildClaudeCommand,
  parseClaudeCommandOptions,
  renderCdLine,
  renderClaudeLoginShellCommand,
  renderClaudeScript,
  renderEnvAssignments,
  renderEnvExports,
} from './claude-command.ts';
import type { ClaudeCommandOptionsInput } from './claude-command.ts';

const FIXED = [
  '-p',
  '--output-format',
  'stream-json',
  '--verbose',
  '--input-format',
  'stream-json',
  '--permission-prompt-tool',
  'stdio',
];

const FULL: ClaudeCommandOptionsInput = {
  claudePath: '/home/dev/.local/bin/claude',
  cwd: '/home/dev/work',
  resume: '9be20d13-0000-4000-8000-000000000000',
  tools: ['Read', 'Grep', 'Glob', 'Bash'],
  allowedTools: ['Read', 'Bash(git *)'],
  disallowedTools: ['Write', 'WebFetch'],
  permissionMode: 'acceptEdits',
  model: 'sonnet',
  maxTurns: 7,
  addDirs: ['/home/dev/outside', '/srv/shared data'],
  env: { IS_SANDBOX: '1', LANG: 'C.UTF-8' },
};

describe('buildClaudeCommand', () => {
  it('builds the minimal command: default binary, fixed flags, cwd apart from argv', () => {
    expect(buildClaudeCommand({ cwd: '/home/dev/work' })).toEqual({
      argv: ['claude', ...FIXED],
      cwd: '/home/dev/work',
      env: {},
    });
  });

  it('builds the full command with every optional flag, in a stable order', () => {
    expect(buildClaudeCommand(FULL)).toEqual({
      argv: [
        '/home/dev/.local/bin/claude',
        ...FIXED,
        ...['--resume', '9be20d13-0000-4000-8000-000000000000'],
        ...['--tools', 'Read,Grep,Glob,Bash'],
        ...['--allowedTools', 'Read,Bash(git *)'],
        ...['--disallowedTools', 'Write,WebFetch'],
        ...['--permission-mode', 'acceptEdits'],
        ...['--model', 'sonnet'],
        ...['--max-turns', '7'],
        ...['--add-dir', '/home/dev/outside', '--add-dir', '/srv/shared data'],
      ],
      cwd: '/home/dev/work',
      env: { IS_SANDBOX: '1', LANG: 'C.UTF-8' },
    });
  });

  it('never emits --project-dir: the cwd is the project', () => {
    expect(buildClaudeCommand(FULL).argv.join(' ')).not.toMatch(/project-dir|\/home\/dev\/work/);
  });

  it('renders an empty tool list as --tools "" (all tools disabled)', () => {
    expect(buildClaudeCommand({ cwd: '/w', tools: [] }).argv.slice(-2)).toEqual(['--tools', '']);
  });

  it('renders the settings restrictions: sources, strict MCP, ask rules as --settings JSON', () => {
    const { argv } = buildClaudeCommand({
      cwd: '/w',
      settingSources: ['user'],
      strictMcpConfig: true,
      askRules: ['Bash', 'Write'],
    });
    expect(argv.slice(FIXED.length + 1)).toEqual([
      ...['--setting-sources', 'user'],
      '--strict-mcp-config',
      ...['--settings', '{"permissions":{"ask":["Bash","Write"]}}'],
    ]);
    expect(buildClaudeCommand({ cwd: '/w', settingSources: [] }).argv.slice(-2)).toEqual([
      '--setting-sources',
      '',
    ]);
    const plain = buildClaudeCommand({ cwd: '/w' }).argv;
    expect(plain).not.toContain('--setting-sources');
    expect(plain).not.toContain('--strict-mcp-config');
    expect(plain).not.toContain('--settings');
  });

  it('refuses an unknown setting source and an empty ask rule list', () => {
    expect(
      captureCatalystError(() => parseClaudeCommandOptions({ cwd: '/w', settingSources: ['policy'] })),
    ).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(captureCatalystError(() => parseClaudeCommandOptions({ cwd: '/w', askRules: [] }))).toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
  });

  it('quotes the --settings JSON so every shell passes it through unchanged', () => {
    const script = renderClaudeScript(buildClaudeCommand({ cwd: '/w', askRules: ['Bash(git *)'] }));
    expect(script).toContain(`'--settings' '{"permissions":{"ask":["Bash(git *)"]}}'`);
  });

  it('renders --no-session-persistence only when asked (the question answerer leaves no session)', () => {
    expect(buildClaudeCommand({ cwd: '/w', noSessionPersistence: true }).argv.at(-1)).toBe(
      '--no-session-persistence',
    );
    expect(buildClaudeCommand({ cwd: '/w' }).argv).not.toContain('--no-session-persistence');
    expect(buildClaudeCommand({ cwd: '/w' }).argv).not.toContain('--include-partial-messages');
    expect(buildClaudeCommand({ cwd: '/w', includePartialMessages: true }).argv.at(-1)).toBe(
      '--include-partial-messages',
    );
  });

  it('renders --fork-session only when asked (an aside forks the idea`s session)', () => {
    const { argv } = buildClaudeCommand({ cwd: '/w', resume: 'abc', forkSession: true });
    expect(argv.slice(-3)).toEqual(['--resume', 'abc', '--fork-session']);
    expect(buildClaudeCommand({ cwd: '/w', resume: 'abc' }).argv).not.toContain('--fork-session');
  });

  it.each<[string, ClaudeCommandOptionsInput]>([
    ['a relative cwd', { cwd: 'work' }],
    ['a home-relative cwd', { cwd: '~/work' }],
    ['an empty cwd', { cwd: '' }],
    ['an env name with a dash', { cwd: '/w', env: { 'BAD-NAME': 'x' } }],
    ['an env name starting with a digit', { cwd: '/w', env: { '1X': 'x' } }],
    ['an env name that injects', { cwd: '/w', env: { 'A=1;id;B': 'x' } }],
    ['a shell-owned env name', { cwd: '/w', env: { PWD: '/elsewhere' } }],
    ['a relative --add-dir', { cwd: '/w', addDirs: ['rel'] }],
    ['maxTurns 0', { cwd: '/w', maxTurns: 0 }],
    ['a fractional maxTurns', { cwd: '/w', maxTurns: 1.5 }],
    ['a resume id that looks like a flag', { cwd: '/w', resume: '--dangerously-skip-permissions' }],
    ['an empty model', { cwd: '/w', model: '' }],
    ['a tool name with a comma', { cwd: '/w', tools: ['Read,Write'] }],
    ['a claudePath with ~', { cwd: '/w', claudePath: '~/.local/bin/claude' }],
  ])('rejects %s with INVALID_ARGUMENT', (_label, options) => {
    const error = captureCatalystError(() => buildClaudeCommand(options));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toMatch(/^invalid claude command options: /);
  });

  it('rejects an unknown option and an unknown permission mode', () => {
    const unknownKey = captureCatalystError(() => parseClaudeCommandOptions({ cwd: '/w', projectDir: '/w' }));
    expect(unknownKey.message).toMatch(/projectDir/);
    const badMode = captureCatalystError(() =>
      parseClaudeCommandOptions({ cwd: '/w', permissionMode: 'auto' }),
    );
    expect(badMode.message).toMatch(/permissionMode/);
    expect(captureCatalystError(() => parseClaudeCommandOptions('cwd=/w')).code).toBe('INVALID_ARGUMENT');
  });

  it('reports every problem at once', () => {
    const error = captureCatalystError(() =>
      buildClaudeCommand({ cwd: 'rel', maxTurns: -1, env: { 'a b': '' } }),
    );
    expect(error.message).toMatch(/cwd/);
    expect(error.message).toMatch(/maxTurns/);
    expect(error.message).toMatch(/env/);
  });

  it.each<[string, ClaudeCommandOptionsInput]>([
    ['cwd', { cwd: '/w\0x' }],
    ['claudePath', { cwd: '/w', claudePath: 'cla\0ude' }],
    ['resume', { cwd: '/w', resume: 'id\0' }],
    ['tools', { cwd: '/w', tools: ['Read', 'B\0ash'] }],
    ['allowedTools', { cwd: '/w', allowedTools: ['\0'] }],
    ['disallowedTools', { cwd: '/w', disallowedTools: ['Write\0'] }],
    ['model', { cwd: '/w', model: 'son\0net' }],
    ['addDirs', { cwd: '/w', addDirs: ['/a\0b'] }],
    ['an env value', { cwd: '/w', env: { FOO: 'a\0b' } }],
    ['an env name', { cwd: '/w', env: { 'FO\0O': 'x' } }],
  ])('rejects a NUL in %s with UNSAFE_ARGUMENT', (_label, options) => {
    const error = captureCatalystError(() => buildClaudeCommand(options));
    expect(error.code).toBe('UNSAFE_ARGUMENT');
    expect(error.message).toMatch(/NUL/);
  });
});

describe('renderClaudeScript', () => {
  it('renders cd, exports, then exec of the quoted argv', () => {
    const command = buildClaudeCommand({
      cwd: "/home/dev/it's here",
      model: 'opus',
      env: { GREETING: "say 'hi' $HOME", EMPTY: '' },
    });
    expect(renderClaudeScript(command)).toBe(
      [
        `cd '/home/dev/it'\\''s here' || exit ${CWD_NOT_FOUND_EXIT_CODE}`,
        `export GREETING='say '\\''hi'\\'' $HOME'`,
        `export EMPTY=''`,
        `exec 'claude' ${FIXED.map((f) => `'${f}'`).join(' ')} '--model' 'opus'`,
        '',
      ].join('\n'),
    );
  });

  it('uses a distinctive exit code for a missing cwd', () => {
    expect([0, 1, 2, 126, 127, 255]).not.toContain(CWD_NOT_FOUND_EXIT_CODE);
    expect(CWD_NOT_FOUND_EXIT_CODE).toBeLessThan(128);
    expect(renderCdLine('/x')).toBe(`cd '/x' || exit ${CWD_NOT_FOUND_EXIT_CODE}`);
  });

  it('re-checks env names and cwd when given a hand-made command', () => {
    expect(captureCatalystError(() => renderEnvExports({ 'X;id': 'v' })).code).toBe('UNSAFE_ARGUMENT');
    // The VM scripts' own variables: a job's `cr_i` would reset the wrapper's export loop.
    expect(captureCatalystError(() => renderEnvAssignments({ cr_i: '5' })).code).toBe('UNSAFE_ARGUMENT');
    expect(captureCatalystError(() => renderCdLine('relative')).code).toBe('INVALID_ARGUMENT');
    const handMade = { argv: ['claude'], cwd: '/w', env: { OK: 'a\0' } };
    expect(captureCatalystError(() => renderClaudeScript(handMade)).code).toBe('UNSAFE_ARGUMENT');
  });

  it('wraps the script for any login shell, and refuses one over the size limit', () => {
    const command = buildClaudeCommand({ cwd: '/w' });
    const wrapped = renderClaudeLoginShellCommand(command);
    expect(wrapped.startsWith("exec /bin/sh -c '")).toBe(true);
    expect(wrapped).toMatch(/ 'sh'$/);
    const huge = buildClaudeCommand({ cwd: '/w', env: { BIG: 'x'.repeat(100_000) } });
    expect(captureCatalystError(() => renderClaudeLoginShellCommand(huge)).code).toBe('COMMAND_TOO_LONG');
  });
});

describe('--max-budget-usd', () => {
  it('is rounded down to six decimals, never up past the cap it was given', () => {
    const { argv } = buildClaudeCommand({ claudePath: '/bin/claude', cwd: '/w', maxBudgetUsd: 0.0000019 });
    expect(argv.slice(argv.indexOf('--max-budget-usd'), argv.indexOf('--max-budget-usd') + 2)).toEqual([
      '--max-budget-usd',
      '0.000001',
    ]);
  });
});
