import { describe, expect, it } from 'vitest';
import { buildClaudeCommand } from './claude-command.ts';
import {
  assertRunTag,
  parseSweepOutput,
  renderKillScript,
  renderRunTagLine,
  renderRunWrapper,
  renderSweepScript,
  type RunWrapperOptions,
} from './run-wrapper.ts';
import { MAX_WRAPPED_COMMAND_BYTES, wrapForAnyLoginShell } from './shell-quote.ts';

// Pure checks of the rendered text. What the scripts do under dash and bash is proven end to end in
// backend/test/run-wrapper-scripts.test.ts and the host contract suites.

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
    const script = renderRunWrapper(base);
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
    const script = renderRunWrapper(base);
    expect(script).not.toContain(TAG);
    expect(script).toContain('  export CATALYST_RUN_TAG="$cr_tag"');
    expect(script).toContain(
      "cr_tag=$cr_tag cr_run=$cr_run cr_job=$cr_job cr_wrapper=$$ setsid '/bin/sh' -c '",
    );
    expect(script).toContain("' catalyst-watchdog <&3 3<&- >/dev/null 2>&1 &");
    expect(renderRunTagLine(TAG)).toBe(`${TAG}\n`);
  });

  it('quotes every argument, env value and the cwd, and tags only the job', () => {
    const script = renderRunWrapper({
      ...base,
      argv: ['/opt/my claude', "it's", '$HOME'],
      cwd: "/srv/o'brien",
      env: { GREETING: 'a $b `c`' },
    });
    expect(script).toContain(`exec "$@" setsid '/opt/my claude' 'it'\\''s' '$HOME'`);
    expect(script).toContain(`cd '/srv/o'\\''brien' || cr_finish cwd 86`);
    expect(script).toContain("  export GREETING='a $b `c`'");
    expect(script.match(/export CATALYST_RUN_TAG=/g)).toHaveLength(1);
    // The tag is exported inside the job's subshell, after the binary check and never at the top level.
    expect(script.indexOf('export CATALYST_RUN_TAG=')).toBeGreaterThan(
      script.indexOf("command -v '/opt/my claude'"),
    );
  });

  it('turns the limits into the watchdog settings', () => {
    const script = renderRunWrapper({
      ...base,
      leaseSeconds: 2.2,
      graceSeconds: 0.25,
      maxRuntimeSeconds: 9.5,
    });
    expect(script).toContain('cr_polls=3');
    expect(script).toContain('cr_lease=3 cr_maxt=10');
  });

  it('gives the job back the default SIGINT that a background sh job starts without, probing untagged', () => {
    const script = renderRunWrapper(base);
    const chosen = script.indexOf('  [ -z "$cr_dfl" ] || set -- env --default-signal=INT,QUIT');
    const cleared = script.indexOf('  set --\n');
    expect(cleared).toBeGreaterThan(0);
    expect(chosen).toBeGreaterThan(cleared);
    expect(chosen).toBeLessThan(script.indexOf('export CATALYST_RUN_TAG='));
    // The probe itself runs in W's background, untagged, and W collects its answer before starting the job.
    const probe = script.indexOf(
      '(exec env --default-signal=INT --version) </dev/null >/dev/null 2>&1 3<&- &\ncr_probe=$!',
    );
    expect(probe).toBeGreaterThan(0);
    expect(probe).toBeLessThan(script.indexOf('wait "$cr_probe" && cr_dfl=1'));
    expect(script.indexOf('wait "$cr_probe" && cr_dfl=1')).toBeLessThan(script.indexOf('\n(\n'));
    expect(script).toContain(`exec "$@" setsid 'claude' '-p'`);
  });

  it("probes with the env PATH, the one that picks the job's env", () => {
    const script = renderRunWrapper({ ...base, env: { PATH: '/opt/bin:/usr/bin', A: 'b' } });
    expect(script).toContain(
      "(export PATH='/opt/bin:/usr/bin'; exec env --default-signal=INT --version) </dev/null",
    );
  });

  it("opens a writer on the job's FIFO right after starting the job, for the watchdog to inherit", () => {
    const script = renderRunWrapper(base);
    const job = script.indexOf(') <"$cr_run/stdin" 3<&- &\ncr_job=$!\n');
    const writer = script.indexOf('command exec 5<>"$cr_run/stdin" 4>"$cr_run/stdin" 5<&- ||');
    const watchdog = script.indexOf("setsid '/bin/sh' -c");
    expect(job).toBeGreaterThan(0);
    expect(writer).toBeGreaterThan(job);
    expect(watchdog).toBeGreaterThan(writer);
    expect(script).toContain('exec 3<&- 4>&-\n');
    // The job marks its open; the watchdog waits for the mark before writing or closing; its timer drops fd 4.
    expect(script).toContain(`(\n  printf '' >"$cr_run/opened"\n`);
    expect(script).toContain('(exec 4>&-; cr_timer) </dev/null &\n');
    expect(script).toContain('    e) cr_await_job; exec 4>&-; cr_input=closed ;;');
    // W ends D by pid too: D may not have made its session yet when a quick job is already done.
    expect(script).toContain('kill -TERM "$cr_wd" "-$cr_wd" 2>/dev/null');
  });

  it('makes the run dir without a command substitution and finds the uid without `id -u`', () => {
    const script = renderRunWrapper(base);
    expect(script).not.toContain('$(cr_make_run)');
    expect(script).toContain('cr_make_run || cr_fail_setup');
    expect(script).toContain('done 2>/dev/null </proc/self/status');
    expect(script.indexOf('cr_uid=$cr_e')).toBeLessThan(script.indexOf('cr_make_run ||'));
  });

  it("has the watchdog send `i` as SIGINT to the job's pid alone, claiming no stop reason", () => {
    const script = renderRunWrapper(base);
    expect(script).toContain(`    i) kill -INT "$cr_job" 2>/dev/null ;;\n`);
    // Not the job's group (`-$cr_job`), not the tag set (cr_signal), not a stop (cr_watch_stop).
    expect(script).not.toMatch(/i\)[^\n]*(-\$cr_job|cr_signal|cr_watch_stop|cr_claim)/);
  });

  it('runs the watchdog with the shell it is given', () => {
    expect(renderRunWrapper({ ...base, shell: '/bin/bash' })).toContain("setsid '/bin/bash' -c 'cr_polls=");
  });

  it("never emits $'…' quoting, which dash and fish reject", () => {
    expect(renderRunWrapper({ ...base, argv: ['claude', 'tab\there', 'nl\nhere'] })).not.toMatch(/\$'/);
  });

  it.each([
    ['an empty argv', { argv: [] }, 'INVALID_ARGUMENT'],
    ['a relative cwd', { cwd: 'srv/project' }, 'INVALID_ARGUMENT'],
    ['the run tag in env', { env: { CATALYST_RUN_TAG: 'x' } }, 'INVALID_ARGUMENT'],
    ['a bad env name', { env: { 'A-B': 'x' } }, 'UNSAFE_ARGUMENT'],
    ['a NUL in an argument', { argv: ['claude', 'a\0b'] }, 'UNSAFE_ARGUMENT'],
    ['a zero lease', { leaseSeconds: 0 }, 'INVALID_ARGUMENT'],
  ] as const)('rejects %s', (_what, change, code) => {
    expect(catchError(() => renderRunWrapper({ ...base, ...change }))).toMatchObject({ code });
  });

  it('fits, with a typical claude command, far inside the login-shell command limit', () => {
    const command = buildClaudeCommand({
      cwd: '/srv/project',
      resume: '0b5c7f3e-7d0b-4c5e-9f57-1b2c3d4e5f60',
    });
    const script = renderRunWrapper({ ...base, argv: command.argv, env: { ANTHROPIC_BASE_URL: 'http://x' } });
    expect(wrapForAnyLoginShell(script).length).toBeLessThan(MAX_WRAPPED_COMMAND_BYTES / 4);
  });
});

describe('renderKillScript and renderSweepScript', () => {
  it('stops the tag it reads on stdin, with the given grace, using only roots and run dirs of ours', () => {
    const script = renderKillScript({ graceSeconds: 2 });
    expect(script).toContain('cr_polls=20');
    expect(script).toContain('IFS= read -r cr_tag\ncr_is_tag "$cr_tag" ||');
    expect(script).toContain(
      '  cr_own_root "$cr_root" || continue\n  if cr_own_dir "$cr_root/$cr_tag"; then',
    );
    expect(script).toContain('cr_stop_run cancel');
  });

  it('rejects a tag line that could smuggle shell syntax', () => {
    expect(catchError(() => renderRunTagLine("x'; rm -rf ~; '"))).toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('stops runs whose heartbeat is older than the threshold', () => {
    const script = renderSweepScript({ staleSeconds: 90, graceSeconds: 5 });
    expect(script).toContain('-ge 90 ]');
    expect(script).toContain('cr_stop_run lease');
    expect(script).toContain('  cr_own_root "$cr_root" || continue\n');
    expect(script).toContain('    cr_is_tag "$cr_tag" && cr_own_dir "$cr_run" || continue\n');
  });

  it('reads the stopped tags off the sweep output', () => {
    const output = `noise\n@@catalyst-sweep stopped tag=${TAG}\n@@catalyst-sweep stopped tag=Bad\n`;
    expect(parseSweepOutput(output)).toEqual([TAG]);
  });
});
