import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from '@catalyst/testkit';
import type { HostTerminal } from '../src/host/host.ts';
import { createRunTag } from '../src/host/wrapped-run.ts';
import type { HostTestContext, HostTestSetup } from './host-test-kit.ts';

/**
 * Host.openTerminal, the same on every adapter (issue 31): a login shell on a pty in the folder asked for, whose
 * window follows a resize, whose run tag never shows, and which leaves no process once closed.
 */

/** The terminal's output as text, and a way to wait for a line a command printed (told from its echo by a sum). */
function follow(terminal: HostTerminal) {
  let printed = '';
  const decoder = new TextDecoder();
  const checks = new Set<() => void>();
  void (async () => {
    for await (const chunk of terminal.output) {
      printed += decoder.decode(chunk, { stream: true });
      for (const check of checks) check();
    }
  })();
  const run = (command: string, marker: string): Promise<string> => {
    const from = printed.length;
    terminal.write(Buffer.from(`echo "${marker}-b$((0+1))"; ${command}; echo "${marker}-e$((40+2))"\r`));
    return new Promise((resolve, reject) => {
      const check = () => {
        const shown = printed.slice(from);
        const end = shown.lastIndexOf(`${marker}-e42`);
        if (end < 0) return;
        checks.delete(check);
        clearTimeout(timer);
        resolve(shown.slice(shown.lastIndexOf(`${marker}-b1`), end));
      };
      const timer = setTimeout(() => {
        checks.delete(check);
        reject(new Error(`no ${marker} in time; printed: ${JSON.stringify(printed.slice(-300))}`));
      }, 15_000);
      checks.add(check);
    });
  };
  return { run, printed: () => printed };
}

export function describeTerminalContract(name: string, setup: HostTestSetup): void {
  describe(`Host terminal: ${name}`, () => {
    let context: HostTestContext;
    beforeAll(async () => {
      context = await setup();
    });
    afterAll(async () => {
      await context.host.close();
      await context.cleanup();
    });

    it('opens a shell in the folder, follows a resize, and leaves nothing once closed', async () => {
      const runTag = createRunTag();
      const terminal = await context.host.openTerminal({
        cwd: context.scratchDir,
        runTag,
        cols: 90,
        rows: 20,
      });
      const shell = follow(terminal);
      expect(await shell.run('pwd', 'pwd')).toContain(context.scratchDir);
      expect(await shell.run('stty size', 'size1')).toContain('20 90');
      terminal.resize(120, 33);
      // A resize travels apart from the keys (a window-change request, or stty from outside): asked until seen.
      let size = '';
      for (let attempt = 0; attempt < 50 && !size.includes('33 120'); attempt += 1) {
        size = await shell.run('stty size', `size-again${String(attempt)}`);
      }
      expect(size).toContain('33 120');
      await shell.run('nohup sleep 305 >/dev/null 2>&1 & true', 'bg');
      // A job forked in the background shows the shell's command line until its exec: waited for.
      await waitUntil(
        async () => (await context.scanProcesses(runTag)).some((found) => found.cmdline === 'sleep 305'),
        { timeoutMs: 10_000, what: 'the background sleep to start' },
      );
      expect(shell.printed()).not.toContain(runTag);
      // Its run dir (vm/terminal-shell.sh), for the start-up sweep of a killed Catalyst; gone once it is closed. (Over
      // SSH, terminal-killed.test.ts sees the sweep use it.)
      if (context.hasRunDir !== undefined) expect(await context.hasRunDir(runTag)).toBe(true);

      await terminal.close();
      await terminal.ended;
      expect(await context.scanProcesses(runTag)).toEqual([]);
      if (context.hasRunDir !== undefined) expect(await context.hasRunDir(runTag)).toBe(false);
    });
  });
}
