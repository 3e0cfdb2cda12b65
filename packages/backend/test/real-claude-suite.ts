import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createUserMessage, type CliMessage, type StreamEvent } from '@catalyst/protocol';
import {
  claudeTestEnv,
  longRunningCommand,
  startScriptedModel,
  text,
  toolUse,
  waitUntil,
  type ScriptedModel,
} from '@catalyst/testkit';
import { buildClaudeCommand } from '../src/core/claude-command.ts';
import { parseStream } from '../src/core/stream-parser.ts';
import type { RunHandle } from '../src/host/host.ts';
import { expectNothingLeft, reapRuns, type HostProcess, type HostTestContext } from './host-test-kit.ts';

/**
 * The real claude CLI through a Host, one suite for every adapter (the local host, the SSH host): a turn the
 * backend's parser types completely, and a cancel while a Bash tool runs that leaves nothing of the run behind.
 * What is left is found by the run's tag, never by command line, so a process another run left cannot pass for
 * this run's own (or fail it).
 */

export interface RealClaudeContext extends HostTestContext {
  /** claude on the host, reachable by the host's user. */
  claudePath: string;
  /** An empty HOME for the CLI and its working directory, on the host, owned by the host's user. */
  home: string;
  work: string;
  /** The PATH runs get on the host (the test's own PATH means nothing on a VM). */
  path?: string;
}

export type RealClaudeSetup = () => Promise<RealClaudeContext>;

function isMessage(event: StreamEvent, check: (message: CliMessage) => boolean): boolean {
  return event.kind === 'message' && check(event.message);
}

export function describeRealClaude(name: string, setup: RealClaudeSetup): void {
  describe(`the real claude CLI through the ${name} host`, () => {
    let context: RealClaudeContext;
    let model: ScriptedModel;
    const runTags: string[] = [];

    beforeEach(async () => {
      context = await setup();
      model = await startScriptedModel();
    });
    afterEach(async () => {
      await reapRuns(context, runTags);
      await model.close();
      await context.cleanup();
    });

    async function startClaude(graceMs?: number): Promise<RunHandle> {
      const command = buildClaudeCommand({ cwd: context.work, claudePath: context.claudePath });
      const env = {
        ...claudeTestEnv({
          home: context.home,
          modelUrl: model.url,
          maxRetries: 1,
          ...(context.path === undefined ? {} : { extra: { PATH: context.path } }),
        }),
        ...command.env,
      };
      const limits = graceMs === undefined ? {} : { limits: { graceMs } };
      const handle = await context.host.startRun({ argv: command.argv, cwd: command.cwd, env, ...limits });
      runTags.push(handle.runTag);
      // claude's stderr is empty in a normal run (claude-cli-protocol.md §1); it is read so the run can end.
      void (async () => {
        for await (const _chunk of handle.stderr) {
          // drained
        }
      })();
      return handle;
    }

    it('streams a turn that the backend parser types, with no rc-file noise, then exits 0 on endInput()', async () => {
      model.enqueue(text(`Hello through the ${name} host.`));
      const handle = await startClaude();
      await handle.writeLine(JSON.stringify(createUserMessage('hi')));
      const events: StreamEvent[] = [];
      for await (const event of parseStream(handle.stdout)) {
        events.push(event);
        if (isMessage(event, (m) => m.type === 'result')) await handle.endInput();
      }
      expect(events.filter((e) => e.kind !== 'message' || e.message.type === 'unknown')).toEqual([]);
      expect(events.find((e) => isMessage(e, (m) => m.type === 'system'))).toMatchObject({
        message: { type: 'system', subtype: 'init', cwd: context.work },
      });
      expect(events.find((e) => isMessage(e, (m) => m.type === 'result'))).toMatchObject({
        message: {
          type: 'result',
          subtype: 'success',
          is_error: false,
          result: `Hello through the ${name} host.`,
        },
      });
      expect(await handle.outcome).toEqual({ kind: 'exited', code: 0, signal: null });
    });

    it('cancel() while a Bash tool runs leaves neither its process nor claude behind', async () => {
      // A duration no other test uses, so a failure report names this test's process.
      const seconds = 300 + Math.floor(Math.random() * 100);
      model.enqueue(
        toolUse('Bash', { command: longRunningCommand(seconds), description: 'Wait a long time' }),
        text('never sent'),
      );
      const handle = await startClaude(2000);
      // Read in the background: a channel whose output nobody reads may not close (ssh-field-notes.md).
      const drained = (async () => {
        for await (const _event of parseStream(handle.stdout)) {
          // nothing to check: the processes are the proof
        }
      })();
      await handle.writeLine(JSON.stringify(createUserMessage('wait please')));
      // The tool's process and claude, both carrying this run's tag.
      let tagged: HostProcess[] = [];
      await waitUntil(
        async () => {
          tagged = await context.scanProcesses(handle.runTag);
          return tagged.some((p) => p.cmdline === `sleep ${String(seconds)}`);
        },
        { timeoutMs: 15_000, what: `the Bash tool's sleep ${String(seconds)}, carrying the run tag` },
      );
      expect(tagged.some((p) => p.cmdline.startsWith(context.claudePath))).toBe(true);
      const cancelledAt = Date.now();
      handle.cancel();
      expect(await handle.outcome).toEqual({ kind: 'cancelled' });
      await expectNothingLeft(context, handle.runTag, 3000);
      console.log(
        `[real claude, ${name}] cancel during Bash: nothing left ${String(Date.now() - cancelledAt)} ms after cancel()`,
      );
      await drained;
    });
  });
}
