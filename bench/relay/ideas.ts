/**
 * The many-ideas phase of bench/relay/main.ts (issue 16 item 10: the RSS goal must hold with 500 ideas opened
 * once each). It creates IDEAS ideas over REST, gives each a history of about HISTORY_BYTES (finished chat runs:
 * the person's message, Claude's text, tool calls and their results), then opens each once as a browser does: a
 * subscribe from 0 that replays the whole history over a WebSocket, then an unsubscribe. The histories are written
 * as `events.ndjson` on the host (the sshd runs on this machine) before the backend first opens them, as the
 * files a long-lived Catalyst left behind would be: writing 250 MB through the stand-in would measure the runs,
 * not the opening. Every replayed event is counted, so an idea that was not really read shows as a problem.
 */
import { chown, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  RelayEventSchema,
  type RelayEvent,
  type RelayEventDraft,
  type ServerFrame,
} from '../../packages/protocol/src/index.ts';
import { createIdea, type BenchContext } from './phases.ts';
import type { BenchSite } from './site.ts';
import { openRelayClient, type RelayClient } from './ws-client.ts';

export const IDEAS = 500;
const HISTORY_BYTES = 512 * 1024;
const CONCURRENCY = 8;
const REPLAY_TIMEOUT_MS = 60_000;
const WORDS =
  'the tide clock reads a harbour table and draws high and low water for each coast we chose'.split(' ');

export interface IdeasFigures {
  readonly ideas: number;
  readonly eventsReplayed: number;
  readonly historyMb: number;
  readonly elapsedMs: number;
}

export async function measureManyIdeas(
  context: BenchContext,
  site: BenchSite,
  say: (line: string) => void,
): Promise<IdeasFigures> {
  const ids = await inBatches(IDEAS, (index) => createIdea(context, `Many ideas ${String(index)}`));
  let historyBytes = 0;
  const expected = new Map<string, number>();
  await inBatches(ids.length, async (index) => {
    const id = ids[index] ?? '';
    const { events, bytes } = await writeHistory(site.ideasRoot, id);
    expected.set(id, events);
    historyBytes += bytes;
  });
  say(`many ideas: ${ids.length} created, ${(historyBytes / 1e6).toFixed(0)} MB of history written`);
  const startedAt = performance.now();
  const replayed = new Map<string, number>();
  const client = await openRelayClient(context.url, context.token, (frame) => {
    if (isRelayEvent(frame)) replayed.set(frame.ideaId, (replayed.get(frame.ideaId) ?? 0) + 1);
  });
  context.clients.push(client);
  await inBatches(ids.length, (index) => openOnce(client, ids[index] ?? ''));
  await settleUnsubscribes(client, ids[0] ?? '');
  for (const [id, events] of expected)
    if (replayed.get(id) !== events)
      context.problems.push(
        `many ideas: ${id} replayed ${String(replayed.get(id) ?? 0)} of ${String(events)}`,
      );
  const eventsReplayed = [...replayed.values()].reduce((sum, count) => sum + count, 0);
  return {
    ideas: ids.length,
    eventsReplayed,
    historyMb: historyBytes / 1e6,
    elapsedMs: performance.now() - startedAt,
  };
}

/** Runs `task(0)` … `task(count - 1)`, CONCURRENCY at a time, in order of index. */
async function inBatches<T>(count: number, task: (index: number) => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  for (let first = 0; first < count; first += CONCURRENCY) {
    const batch = Array.from({ length: Math.min(CONCURRENCY, count - first) }, (_, offset) =>
      task(first + offset),
    );
    results.push(...(await Promise.all(batch)));
  }
  return results;
}

/** Subscribed resolves after the replay (ws-subscriptions.ts); then the page is closed. */
async function openOnce(client: RelayClient, ideaId: string): Promise<void> {
  await client.subscribe(ideaId);
  client.send({ type: 'unsubscribe', ideaId });
}

/**
 * An unsubscribe has no answer; a cancel of an idea with no run answers NO_RUN, and the server handles one
 * connection's frames in order, so that answer means every unsubscribe before it was handled.
 */
async function settleUnsubscribes(client: RelayClient, ideaId: string): Promise<void> {
  const answered = client.waitFor(
    (frame) => frame.type === 'error' && frame.code === 'NO_RUN',
    'the answer to a cancel sent after the last unsubscribe',
    REPLAY_TIMEOUT_MS,
  );
  client.send({ type: 'cancel', ideaId });
  await answered;
}

function isRelayEvent(frame: ServerFrame): frame is RelayEvent {
  return RelayEventSchema.safeParse(frame).success;
}

/** The idea's events.ndjson, owned by the user the backend logs in as (the owner of the idea's folder). */
async function writeHistory(ideasRoot: string, ideaId: string): Promise<{ events: number; bytes: number }> {
  const dir = join(ideasRoot, ideaId);
  const lines = historyLines(ideaId);
  const text = lines.join('');
  const path = join(dir, 'events.ndjson');
  await writeFile(path, text, { mode: 0o600 });
  const owner = await stat(dir);
  await chown(path, owner.uid, owner.gid);
  return { events: lines.length, bytes: Buffer.byteLength(text) };
}

/** Finished chat runs until the history holds HISTORY_BYTES; every line is checked against the protocol. */
function historyLines(ideaId: string): string[] {
  const lines: string[] = [];
  let bytes = 0;
  let seq = 0;
  const ts = new Date().toISOString();
  for (let run = 1; bytes < HISTORY_BYTES; run++) {
    for (const draft of runDrafts(ideaId, `run-bench-${String(run)}`, run)) {
      seq++;
      const line = `${JSON.stringify(RelayEventSchema.parse({ ...draft, seq, ts }))}\n`;
      lines.push(line);
      bytes += Buffer.byteLength(line);
    }
  }
  return lines;
}

function runDrafts(ideaId: string, runId: string, run: number): RelayEventDraft[] {
  const base = { ideaId, runId };
  const drafts: RelayEventDraft[] = [
    { ...base, type: 'run:started', mode: 'chat', message: prose(run, 300) },
    { ...base, type: 'idea:status', status: 'chatting' },
  ];
  for (let turn = 0; turn < 6; turn++) {
    const toolUseId = `toolu_${String(run)}_${String(turn)}`;
    const messageId = `msg_${String(run)}_${String(turn)}`;
    drafts.push(
      { ...base, type: 'claude:text', text: prose(run + turn, 1500), messageId, parentToolUseId: null },
      {
        ...base,
        type: 'claude:tool_use',
        toolUseId,
        name: 'Read',
        input: { file_path: `/home/dash/project/src/file-${String(turn)}.ts` },
        parentToolUseId: null,
      },
      { ...base, type: 'claude:tool_result', toolUseId, content: prose(run * turn, 4000), isError: false },
    );
  }
  drafts.push({ ...base, type: 'run:ended', outcome: 'completed' });
  return drafts;
}

function prose(seed: number, chars: number): string {
  const words: string[] = [];
  let length = 0;
  for (let index = seed; length < chars; index += 7) {
    const word = WORDS[index % WORDS.length] ?? 'tide';
    words.push(word);
    length += word.length + 1;
  }
  return words.join(' ');
}
