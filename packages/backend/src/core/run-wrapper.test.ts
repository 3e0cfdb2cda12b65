import { describe, expect, it } from 'vitest';
import { buildClaudeCommand, CWD_NOT_FOUND_EXIT_CODE } from './claude-command.ts';
import {
  assertRunTag,
  CLI_NOT_FOUND_EXIT_CODE,
  parseSweepOutput,
  renderKillScript,
  renderRunTagLine,
  renderRunWrapper,
  renderSweepScript,
  type RunWrapperOptions,
} from './run-wrapper.ts';
import { MAX_WRAPPED_COMMAND_BYTES, wrapForAnyLoginShell } from './shell-quote.ts';

// Pure checks of the scripts' text (packages/backend/vm/run-*.sh, as generated) and of the arguments each call gets.
// What the scripts do under dash and bash is proven end to end in backend/test/run-wrapper-scripts.test.ts and the
// host contract suites.

const TAG = 'abcdef0123456789';
const base: RunWrapperOptions = {
  argv: ['claude', '-p'],
  cwd: '/srv/project',
  leaseSeconds: 30,
  graceSeconds: 5,
  maxRuntimeSeconds: 21600,
};

function catchError(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('assertRunTag', () => {
  it.each(['abcdefgh', 'a'.repeat(64), '0123-4567-89ab'])('accepts %s', (tag) => {
    expect(() => {
      assertRunTag(tag);
    }).not.toThrow();
  });

  it.each(['short', 'a'.repeat(65), 'ABCDEFGH', "abc'defgh", 'abcdefgh\n', 'abc defgh'])(
    'rejects %j',
    (tag) => {
      expect(
        catchError(() => {
          assertRunTag(tag);
        }),
      ).toMatchObject({ code: 'INVALID_ARGUMENT' });
    },
  );
});

describe('renderRunWrapper', () => {
  it('reads its tag from stdin, then prints the start marker on stdout and then on stderr', () => {
    const { script } = renderRunWrapper(base);
    const lines = script.split('\n');
    const marker = lines.indexOf(`printf '@@catalyst-run started tag=%s pid=%s\\n' "$cr_tag" "$$"`);
    expect(marker).toBeGreaterThan(0);
    expect(lines[marker + 1]).toBe(`${lines[marker] ?? ''} >&2`);
    const read = lines.indexOf('IFS= read -r cr_tag');
    expect(read).toBeGreaterThan(0);
    expect(read).toBeLessThan(marker);
    // Nothing is printed before the marker, and the channel's stdin is kept for the watchdog only after the read.
    expect(
      lines.slice(0, marker).filter((line) => /^\s*(printf|echo)/.test(line) && !line.includes('>&2')),
    ).toEqual([]);
    expect(lines.indexOf('exec 3<&0 </dev/null')).toBeGreaterThan(read);
  });

  it('holds no run tag: W reads it, and hands it to the job and the watchdog through their environment', () => {
    const call = renderRunWrapper(base);
    expect([call.script, call.name, ...call.args].join('\n')).not.toContain(TAG);
    expect(call.script).toContain('  export CATALYST_RUN_TAG="$cr_tag"');
    expect(call.script).toContain(
      'cr_tag=$cr_tag cr_run=$cr_run cr_job=$cr_job cr_wrapper=$$ setsid "$cr_shell" -c "$cr_watchdog" catalyst-watchdog \\\n' +
        '  "$cr_polls" "$cr_lease" "$cr_maxt" <&3 3<&- >/dev/null 2>&1 &',
    );
    expect(renderRunTagLine(TAG)).toBe(`${TAG}\n`);
  });

  it('passes every argument, env value and the cwd as they are, and tags only the job', () => {
    const call = renderRunWrapper({
      ...base,
      argv: ['/opt/my claude', "it's", '$HOME'],
      cwd: "/srv/o'brien",
      env: { GREETING: 'a $b `c`' },
    });
    expect(call.name).toBe('catalyst-run');
    expect(call.args.slice(3, 4)).toEqual(["/srv/o'brien"]);
    expect(call.args.slice(7)).toEqual(['1', 'GREETING=a $b `c`', '/opt/my claude', "it's", '$HOME']);
    expect(call.script).toContain(`cd "$cr_cwd" || cr_finish cwd ${CWD_NOT_FOUND_EXIT_CODE}\n`);
    expect(call.script).toContain('    export "${1?}"\n');
    expect(call.script).toContain('  exec setsid "$@"\n');
    expect(call.script.match(/export CATALYST_RUN_TAG=/g)).toHaveLength(1);
    // The tag is exported inside the job's subshell, after the binary check and never at the top level.
    expect(call.script.indexOf('export CATALYST_RUN_TAG=')).toBeGreaterThan(
      call.script.indexOf(
        `command -v "$1" >/dev/null 2>&1 || {\n    printf '' >"$cr_run/not-found"\n    exit ${CLI_NOT_FOUND_EXIT_CODE}\n`,
      ),
    );
    expect(call.script.indexOf('command -v "$1"')).toBeGreaterThan(call.script.indexOf('export "${1?}"'));
    // Over SSH the arguments are words of their own after the script (quoteForAnyShell).
    expect(wrapForAnyLoginShell(call)).toMatch(
      /' 'GREETING=a \$b `c`' '\/opt\/my claude' 'it'"'"'s' '\$HOME'$/,
    );
  });

  it('turns the limits into the wrapper and watchdog settings', () => {
    const call = renderRunWrapper({ ...base, leaseSeconds: 2.2, graceSeconds: 0.25, maxRuntimeSeconds: 9.5 });
    expect(call.args.slice(0, 3)).toEqual(['3', '3', '10']);
    expect(call.script.split('\n')[0]).toBe(
      'cr_polls=$1 cr_lease=$2 cr_maxt=$3 cr_cwd=$4 cr_shell=$5 cr_watchdog=$6 cr_delay=$7 cr_nenv=$8',
    );
    expect(call.args[5]).toContain('cr_polls=$1 cr_lease=$2 cr_maxt=$3\n');
  });

  it('gives the job back the default SIGINT that a background sh job starts without, probing untagged', () => {
    const { script } = renderRunWrapper(base);
    const chosen = script.indexOf(
      '  [ -z "$cr_dfl" ] || exec env --default-signal=INT,QUIT setsid "$@"\n  exec setsid "$@"\n',
    );
    expect(chosen).toBeGreaterThan(script.indexOf('export CATALYST_RUN_TAG='));
    // The probe itself runs in W's background, untagged, and W collects its answer before starting the job.
    const probe = script.indexOf(
      '  exec env --default-signal=INT --version\n) </dev/null >/dev/null 2>&1 3<&- &\ncr_probe=$!',
    );
    expect(probe).toBeGreaterThan(0);
    expect(probe).toBeLessThan(script.indexOf('wait "$cr_probe" && cr_dfl=1'));
    expect(script.indexOf('wait "$cr_probe" && cr_dfl=1')).toBeLessThan(
      script.indexOf('\n(\n  [ "$cr_delay"'),
    );
  });

  it("probes with the env PATH, the one that picks the job's env", () => {
    const { script, args } = renderRunWrapper({ ...base, env: { PATH: '/opt/bin:/usr/bin', A: 'b' } });
    expect(args.slice(7, 10)).toEqual(['2', 'PATH=/opt/bin:/usr/bin', 'A=b']);
    const probe = script.slice(script.indexOf('cd "$cr_cwd"'), script.indexOf('cr_probe=$!'));
    expect(probe).toContain('    case $1 in PATH=*) export "${1?}" ;; esac\n');
    expect(probe).not.toMatch(/^\s*export "\$\{1\?\}"$/m);
  });

  it("opens a writer on the job's FIFO right after starting the job, for the watchdog to inherit", () => {
    const { script, args } = renderRunWrapper(base);
    const job = script.indexOf(') 3<&- &\ncr_job=$!\n');
    const writer = script.indexOf('command exec 5<>"$cr_run/stdin" 4>"$cr_run/stdin" 5<&- ||');
    const watchdog = script.indexOf('setsid "$cr_shell" -c');
    expect(job).toBeGreaterThan(0);
    expect(writer).toBeGreaterThan(job);
    expect(watchdog).toBeGreaterThan(writer);
    expect(script).toContain('exec 3<&- 4>&-\n');
    // The job opens the FIFO and marks its open first; the watchdog waits for the mark before writing or closing;
    // its timer drops fd 4.
    expect(script).toContain(
      `(\n  [ "$cr_delay" = 0 ] || sleep "$cr_delay"\n  exec <"$cr_run/stdin"\n  printf '' >"$cr_run/opened"\n`,
    );
    expect(args[6]).toBe('0');
    const watchdogScript = args[5] ?? '';
    expect(watchdogScript).toContain('(\n  exec 4>&-\n  cr_timer\n) </dev/null &\n');
    expect(watchdogScript).toContain('    e)\n      cr_await_job\n      exec 4>&-\n      cr_input=closed\n');
    // W ends D by pid too: D may not have made its session yet when a quick job is already done.
    expect(script).toContain('kill -TERM "$cr_wd" "-$cr_wd" 2>/dev/null');
  });

  it('makes the run dir without a command substitution and finds the uid without `id -u`', () => {
    const { script } = renderRunWrapper(base);
    expect(script).not.toContain('$(cr_make_run)');
    expect(script).toContain('cr_make_run || cr_fail_setup');
    expect(script).toContain('done 2>/dev/null </proc/self/status');
    expect(script.indexOf('\ncr_read_uid\n')).toBeGreaterThan(0);
    expect(script.indexOf('\ncr_read_uid\n')).toBeLessThan(script.indexOf('cr_make_run ||'));
  });

  it("has the watchdog send `i` as SIGINT to the job's pid alone, claiming no stop reason", () => {
    const watchdog = renderRunWrapper(base).args[5] ?? '';
    expect(watchdog).toContain(`    i) kill -INT "$cr_job" 2>/dev/null ;;\n`);
    // Not the job's group (`-$cr_job`), not the tag set (cr_signal), not a stop (cr_watch_stop).
    expect(watchdog).not.toMatch(/i\)[^\n]*(-\$cr_job|cr_signal|cr_watch_stop|cr_claim)/);
  });

  it('runs the watchdog with the shell it is given', () => {
    expect(renderRunWrapper({ ...base, shell: '/bin/bash' }).args[4]).toBe('/bin/bash');
    expect(renderRunWrapper(base).args[4]).toBe('/bin/sh');
  });

  it("never emits $'…' quoting, which dash and fish reject", () => {
    const call = renderRunWrapper({ ...base, argv: ['claude', 'tab\there', 'nl\nhere'] });
    expect(call.script).not.toMatch(/\$'/);
    expect(wrapForAnyLoginShell(call)).not.toMatch(/\$'/);
  });

  it('delays the FIFO open only when a test asks', () => {
    expect(renderRunWrapper({ ...base, testDelayFifoOpenSeconds: 1 }).args[6]).toBe('1');
  });

  it.each([
    ['an empty argv', { argv: [] }, 'INVALID_ARGUMENT'],
    ['a relative cwd', { cwd: 'srv/project' }, 'INVALID_ARGUMENT'],
    ['the run tag in env', { env: { CATALYST_RUN_TAG: 'x' } }, 'INVALID_ARGUMENT'],
    ['a bad env name', { env: { 'A-B': 'x' } }, 'UNSAFE_ARGUMENT'],
    ['a NUL in an argument', { argv: ['claude', 'a\0b'] }, 'UNSAFE_ARGUMENT'],
    ['a NUL in an env value', { env: { A: 'a\0b' } }, 'UNSAFE_ARGUMENT'],
    ['a zero lease', { leaseSeconds: 0 }, 'INVALID_ARGUMENT'],
  ] as const)('rejects %s', (_what, change, code) => {
    expect(catchError(() => renderRunWrapper({ ...base, ...change }))).toMatchObject({ code });
  });

  it('fits, with a typical claude command, far inside the login-shell command limit', () => {
    const command = buildClaudeCommand({
      cwd: '/srv/project',
      resume: '0b5c7f3e-7d0b-4c5e-9f57-1b2c3d4e5f60',
    });
    const call = renderRunWrapper({ ...base, argv: command.argv, env: { ANTHROPIC_BASE_URL: 'http://x' } });
    expect(wrapForAnyLoginShell(call).length).toBeLessThan(MAX_WRAPPED_COMMAND_BYTES / 4);
  });
});

describe('renderKillScript and renderSweepScript', () => {
  it('stops the tag it reads on stdin, with the given grace, using only roots and run dirs of ours', () => {
    const call = renderKillScript({ graceSeconds: 2 });
    expect(call.args).toEqual(['20']);
    expect(call.script).toContain('IFS= read -r cr_tag\ncr_is_tag "$cr_tag" ||');
    expect(call.script).toContain(
      '  cr_own_root "$cr_root" || continue\n  if cr_own_dir "$cr_root/$cr_tag"; then',
    );
    expect(call.script).toContain('cr_stop_run cancel');
  });

  it('rejects a tag line that could smuggle shell syntax', () => {
    expect(catchError(() => renderRunTagLine("x'; rm -rf ~; '"))).toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('stops runs whose heartbeat is older than the threshold', () => {
    const call = renderSweepScript({ staleSeconds: 90, graceSeconds: 5 });
    expect(call.args).toEqual(['50', '90']);
    expect(call.script).toContain('-ge "$cr_stale" ]');
    expect(call.script).toContain('cr_stop_run lease');
    expect(call.script).toContain('  cr_own_root "$cr_root" || continue\n');
    expect(call.script).toContain('    { cr_is_tag "$cr_tag" && cr_own_dir "$cr_run"; } || continue\n');
  });

  it('reads the stopped tags off the sweep output', () => {
    const output = `noise\n@@catalyst-sweep stopped tag=${TAG}\n@@catalyst-sweep stopped tag=Bad\n`;
    expect(parseSweepOutput(output)).toEqual([TAG]);
  });
});
