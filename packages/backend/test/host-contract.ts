import { once } from 'node:events';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunSpec } from '../src/host/host.ts';
import { describeHostFilesContract } from './host-files-contract.ts';
import { reapRuns, watchRun, type HostTestContext, type HostTestSetup } from './host-test-kit.ts';

export type { HostTestContext, HostTestSetup } from './host-test-kit.ts';

/**
 * The contract every Host adapter passes (STYLE.md, Tests: one contract suite per port). `setup` runs once per
 * suite; each test works in its own directory under `scratchDir`, and afterEach proves that no process of any run
 * the test started is left (`scanProcesses`).
 */
export interface HostContractOptions {
  /**
   * The many-runs-at-once race (12 runs): false where it proves nothing new and costs much, the SSH root user (its
   * ~/.bashrc is sourced by sshd for every run; the race is the watchdog's, proven for the other users).
   */
  burst?: boolean;
}

export function describeHostContract(
  name: string,
  setup: HostTestSetup,
  options: HostContractOptions = {},
): void {
  describe(`Host contract: ${name}`, () => {
    let context: HostTestContext;
    const runTags: string[] = [];
    let counter = 0;

    beforeAll(async () => {
      context = await setup();
    });
    afterEach(async () => {
      await reapRuns(context, runTags);
    });
    afterAll(async () => {
      await context.host.close();
      await context.cleanup();
    });

    async function start(argv: string[], extra: Partial<RunSpec> = {}) {
      const handle = await context.host.startRun({ argv, cwd: context.scratchDir, ...extra });
      runTags.push(handle.runTag);
      return { handle, watch: watchRun(handle) };
    }

    async function freshDir(): Promise<string> {
      counter += 1;
      const dir = `${context.scratchDir}/run-${String(counter)}`;
      await context.host.mkdirp(dir);
      return dir;
    }

    describe('runs', () => {
      it('streams stdout and ends with exit code 0, nothing of the wrapper in the output', async () => {
        const { watch } = await start(['sh', '-c', 'printf "hello\\n"; printf "world\\n"']);
        const result = await watch.finish();
        expect(result).toEqual({
          stdout: 'hello\nworld\n',
          stderr: '',
          outcome: { kind: 'exited', code: 0, signal: null },
        });
        for (const noise of context.rcNoise ?? []) expect(result.stdout + result.stderr).not.toContain(noise);
      });

      it('keeps stderr apart from stdout and reports a non-zero exit code', async () => {
        const { watch } = await start([
          'sh',
          '-c',
          'echo out1; echo err1 >&2; echo out2; printf err2 >&2; exit 7',
        ]);
        const result = await watch.finish();
        expect(result).toEqual({
          stdout: 'out1\nout2\n',
          stderr: 'err1\nerr2',
          outcome: { kind: 'exited', code: 7, signal: null },
        });
      });

      it('runs in the cwd with the env exported byte-exact and the run tag set', async () => {
        const cwd = await freshDir();
        const value = `it's "quoted" $HOME \`id\` ünï`;
        const { handle, watch } = await start(
          ['sh', '-c', 'printf "%s|%s|%s" "$PWD" "$GREETING" "$CATALYST_RUN_TAG"'],
          {
            cwd,
            env: { GREETING: value },
          },
        );
        const result = await watch.finish();
        expect(result.stdout).toBe(`${cwd}|${value}|${handle.runTag}`);
        expect(result.outcome).toEqual({ kind: 'exited', code: 0, signal: null });
      });

      it('passes stdin lines unchanged, a 100 KB line included, and ends input on endInput()', async () => {
        const script =
          'while IFS= read -r l; do printf "%s %s\\n" "${#l}" "$(printf %s "$l" | cut -c1-24)"; done; echo eof';
        const { handle, watch } = await start(['sh', '-c', script]);
        const big = JSON.stringify({ text: 'x'.repeat(100_000) });
        await handle.writeLine('{"n":1}');
        await handle.writeLine(`{"q":"it's \\"x\\" $HOME"}`);
        await handle.writeLine(big);
        await handle.endInput();
        const result = await watch.finish();
        expect(result.stdout).toBe(
          `7 {"n":1}\n24 {"q":"it's \\"x\\" $HOME"}\n${String(big.length)} ${big.slice(0, 24)}\neof\n`,
        );
        expect(result.outcome).toEqual({ kind: 'exited', code: 0, signal: null });
      });

      it('rejects input lines the wrapper would read as commands, and input after endInput()', async () => {
        const { handle, watch } = await start(['sh', '-c', 'cat >/dev/null']);
        await expect(handle.writeLine('c')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
        await expect(handle.writeLine('{"a":1}\n{"b":2}')).rejects.toMatchObject({
          code: 'INVALID_ARGUMENT',
        });
        await handle.endInput();
        await expect(handle.writeLine('{"a":1}')).rejects.toMatchObject({ code: 'RUN_INPUT_CLOSED' });
        expect((await watch.finish()).outcome).toEqual({ kind: 'exited', code: 0, signal: null });
      });

      it('heartbeats keep a run alive well past its lease', async () => {
        const { watch } = await start(['sh', '-c', 'sleep 3; echo alive'], { limits: { leaseMs: 1500 } });
        expect(await watch.finish()).toEqual({
          stdout: 'alive\n',
          stderr: '',
          outcome: { kind: 'exited', code: 0, signal: null },
        });
      });

      // The watchdog must not close the job's stdin before the job has opened it (a job would then wait forever).
      const burstIt = options.burst === false ? undefined : it;
      burstIt?.('ends input sent at once after start, in many runs at the same time', async () => {
        const runs = await Promise.all(
          Array.from({ length: 12 }, () => start(['sh', '-c', 'cat; echo done'])),
        );
        await Promise.all(runs.map(({ handle }) => handle.endInput()));
        const results = await Promise.all(runs.map(({ watch }) => watch.finish()));
        expect(results.map((result) => [result.stdout, result.outcome.kind])).toEqual(
          runs.map(() => ['done\n', 'exited']),
        );
      });

      it('reports a missing binary as start_failed CLI_NOT_FOUND', async () => {
        const { watch } = await start(['catalyst-no-such-binary', '--version']);
        const { outcome } = await watch.finish();
        expect(outcome).toMatchObject({ kind: 'start_failed', code: 'CLI_NOT_FOUND' });
        expect(outcome.kind === 'start_failed' && outcome.message).toContain('catalyst-no-such-binary');
      });

      it('reports a missing cwd as start_failed CWD_NOT_FOUND', async () => {
        const cwd = `${context.scratchDir}/does-not-exist`;
        const { watch } = await start(['sh', '-c', 'echo never'], { cwd });
        const result = await watch.finish();
        expect(result.outcome).toMatchObject({ kind: 'start_failed', code: 'CWD_NOT_FOUND' });
        expect(result.outcome.kind === 'start_failed' && result.outcome.message).toContain(cwd);
        expect(result.stdout).toBe('');
      });

      it('stops a run with killRun() from outside its channel', async () => {
        const { handle, watch } = await start(['sh', '-c', 'echo ready; while :; do sleep 1; done'], {
          limits: { graceMs: 1000 },
        });
        await watch.waitForStdout('ready');
        await context.host.killRun(handle.runTag);
        expect((await watch.finish()).outcome).toEqual({ kind: 'cancelled' });
        expect(await context.scanProcesses(handle.runTag)).toEqual([]);
      });
    });

    describe('preflight', () => {
      it('finds what the run wrapper needs', async () => {
        const preflight = await context.host.preflight();
        expect(preflight.canRunWrapper).toBe(true);
        expect(preflight.path).not.toBe('');
      });
    });

    describeHostFilesContract(() => context, freshDir);

    describe('tcp', () => {
      it('opens a byte stream to an address and port on the host, that address alone, and says so when nothing listens there', async () => {
        // The host is this machine (the test kit's sshd included): an echo server here is on the host's loopback.
        for (const [address, other] of [
          ['127.0.0.1', '::1'],
          ['::1', '127.0.0.1'],
        ] as const) {
          const sockets = new Set<Socket>();
          const server = createServer((socket) => {
            sockets.add(socket);
            socket.pipe(socket);
          });
          server.listen(0, address);
          await once(server, 'listening');
          const { port } = server.address() as AddressInfo;
          const stream = await context.host.openTcp(address, port);
          stream.write('ping through the host');
          const [echo] = (await once(stream, 'data')) as [Buffer];
          expect(echo.toString()).toBe('ping through the host');
          stream.destroy();
          // Never another address the port may be held on (issue 25, finding 6), and never a name to resolve.
          await expect(context.host.openTcp(other, port)).rejects.toMatchObject({ code: 'PORT_UNREACHABLE' });
          await expect(context.host.openTcp('localhost', port)).rejects.toMatchObject({
            code: 'INVALID_ARGUMENT',
          });
          server.close();
          for (const socket of sockets) socket.destroy();
          await once(server, 'close');
          await expect(context.host.openTcp(address, port)).rejects.toMatchObject({
            code: 'PORT_UNREACHABLE',
          });
        }
      });
    });
  });
}
