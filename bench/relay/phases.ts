/**
 * What the latency and load phases of bench/relay/main.ts share: ideas over REST, WebSocket clients whose
 * frames feed one LineTally, a chat through Catalyst, the same stand-in in a raw exec, and the loss count. A run's
 * lines carry its tag, so nothing depends on which client or connection a frame came by.
 */
import { z } from 'zod';
import { IdeaViewSchema, type ServerFrame } from '../../packages/protocol/src/index.ts';
import {
  buildClaudeCommand,
  renderClaudeLoginShellCommand,
} from '../../packages/backend/src/core/claude-command.ts';
import { commandOptionsFor } from '../../packages/backend/src/runs/core/tool-policy.ts';
import type { SshConnection } from '../../packages/backend/src/host/ssh/ssh-connection.ts';
import { benchPrompt, parseBenchLine, parseBenchResult, type LineTally, type TagTally } from './lines.ts';
import { runRawExec } from './raw-exec.ts';
import { openRelayClient, type FrameListener, type RelayClient } from './ws-client.ts';

export const LINE_RATE = 1000;
const RAW_TIMEOUT_MS = 60_000;

export interface BenchContext {
  readonly url: string;
  readonly token: string;
  readonly tally: LineTally;
  /** Error frames, claude:error events, runs that did not complete: anything a clean run does not produce. */
  readonly problems: string[];
  /** Every WebSocket client opened, for the end of the bench. */
  readonly clients: RelayClient[];
}

/** Creates an idea over REST, as the browser does. */
export async function createIdea(context: BenchContext, title: string): Promise<string> {
  const response = await fetch(`${context.url}/api/ideas`, {
    method: 'POST',
    headers: { authorization: `Bearer ${context.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ title, description: 'scripts/bench-relay' }),
  });
  if (response.status !== 201)
    throw new Error(`creating an idea: ${response.status} ${await response.text()}`);
  return z.object({ idea: IdeaViewSchema }).parse(await response.json()).idea.id;
}

export async function openBenchClient(context: BenchContext, onFrame?: FrameListener): Promise<RelayClient> {
  const tallyFrame = createFrameTally(context);
  const client = await openRelayClient(context.url, context.token, (frame, arrivedAt) => {
    tallyFrame(frame, arrivedAt);
    onFrame?.(frame, arrivedAt);
  });
  context.clients.push(client);
  return client;
}

function createFrameTally(context: BenchContext): FrameListener {
  const { tally, problems } = context;
  return (frame, arrivedAt) => {
    if (frame.type === 'claude:text') {
      const line = parseBenchLine(frame.text);
      if (line === undefined) tally.strays++;
      else tally.record(line, arrivedAt);
    } else if (frame.type === 'claude:result') {
      const result = parseBenchResult(frame.result.result ?? '');
      if (result === undefined)
        problems.push(`a result without the stand-in's summary: ${JSON.stringify(frame)}`);
      else tally.recordResult(result);
    } else if (frame.type === 'claude:error' || frame.type === 'error') {
      problems.push(`${frame.type}: ${JSON.stringify(frame).slice(0, 400)}`);
    } else if (frame.type === 'run:ended' && frame.outcome !== 'completed') {
      problems.push(
        `run ${frame.runId ?? '?'} of ${frame.ideaId} ended ${frame.outcome}: ${frame.error?.message ?? ''}`,
      );
    }
  };
}

/** Starts a chat on the idea and resolves once its run:ended (or an error frame about it) has arrived. */
export async function chatThroughCatalyst(
  context: BenchContext,
  client: RelayClient,
  run: { ideaId: string; tag: string; lines: number; timeoutMs: number },
): Promise<ServerFrame> {
  context.tally.expect(run.tag, run.lines);
  const ended = client.waitFor(
    (frame) => (frame.type === 'run:ended' || frame.type === 'error') && frame.ideaId === run.ideaId,
    `the end of the chat ${run.tag}`,
    run.timeoutMs,
  );
  client.send({ type: 'chat', ideaId: run.ideaId, message: benchPrompt(run.tag, run.lines, LINE_RATE) });
  return ended;
}

export interface RawTarget {
  readonly connection: SshConnection;
  readonly standInPath: string;
  /** An existing directory on the VM for the stand-in's cwd. */
  readonly cwd: string;
}

/** The stand-in in a bare exec channel, with the argv a chat gives it, its lines into the tally. */
export async function chatRaw(
  context: BenchContext,
  target: RawTarget,
  tag: string,
  lines: number,
): Promise<void> {
  context.tally.expect(tag, lines);
  const command = buildClaudeCommand({
    claudePath: target.standInPath,
    cwd: target.cwd,
    ...commandOptionsFor('chat'),
  });
  const outcome = await runRawExec({
    connection: target.connection,
    command: renderClaudeLoginShellCommand(command),
    prompt: benchPrompt(tag, lines, LINE_RATE),
    onText: (text, arrivedAt) => {
      const line = parseBenchLine(text);
      if (line === undefined) context.tally.strays++;
      else context.tally.record(line, arrivedAt);
    },
    timeoutMs: RAW_TIMEOUT_MS,
  });
  const result = parseBenchResult(outcome.resultText ?? '');
  if (result === undefined) context.problems.push(`raw exec ${tag}: no result summary`);
  else context.tally.recordResult(result);
  context.problems.push(...outcome.problems.map((problem) => `raw exec ${tag}: ${problem}`));
}

export interface LossCount {
  readonly sent: number;
  readonly received: number;
  readonly lost: number;
  readonly duplicates: number;
  readonly outOfOrder: number;
  /** Runs whose stand-in summary never arrived: their `sent` is the planned count. */
  readonly withoutResult: number;
}

/** Sent is what each stand-in says it wrote (its result line), else what it was asked to write. */
export function countLosses(tallies: readonly TagTally[]): LossCount {
  const sum = (pick: (tally: TagTally) => number) => tallies.reduce((total, tally) => total + pick(tally), 0);
  const sent = sum((tally) => tally.result?.sent ?? tally.planned);
  const received = sum((tally) => tally.received);
  return {
    sent,
    received,
    lost: sent - received,
    duplicates: sum((tally) => tally.duplicates),
    outOfOrder: sum((tally) => tally.outOfOrder),
    withoutResult: tallies.filter((tally) => tally.result === undefined).length,
  };
}
