import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  EventsResponseSchema,
  RelayEventSchema,
  type RelayEvent,
  type ServerFrame,
} from '@catalyst/protocol';
import { streamedText, streamError, text, toolUse, waitForFile, waitUntil } from '@catalyst/testkit';
import { type IdeaClient, useServiceFixture } from './service-harness.ts';

// Streaming text end to end: the real claude CLI with --include-partial-messages over the test kit's sshd, its
// text deltas relayed live to a subscribed WebSocket client, and none of them in the idea's history.

const fixture = useServiceFixture();

type Frame<T extends ServerFrame['type']> = Extract<ServerFrame, { type: T }>;

function framesOf<T extends ServerFrame['type']>(frames: readonly ServerFrame[], type: T): Frame<T>[] {
  return frames.filter((frame): frame is Frame<T> => frame.type === type);
}

/** Sends a chat and resolves with every frame from its run:started to its run:ended, live-only ones included. */
async function chat(client: IdeaClient, ideaId: string, message: string): Promise<ServerFrame[]> {
  const from = client.frames.length;
  client.send({ type: 'chat', ideaId, message });
  const started = await client.waitFor((f) => f.type === 'run:started', from);
  await client.untilEnded(started);
  const runFrames = client.frames.slice(from);
  return runFrames.slice(runFrames.indexOf(started));
}

/** What the history holds of an idea, three ways: a fresh replay, GET events, and the file on the VM. */
async function storedHistory(ideaId: string): Promise<{ replayed: ServerFrame[]; stored: RelayEvent[] }> {
  const fresh = await fixture.service.connect();
  await fresh.subscribe(ideaId, 0);
  const replayed = [...fresh.frames];
  fresh.close();
  const response = await fixture.service.api(`/api/ideas/${ideaId}/events?sinceSeq=0`);
  const { events } = EventsResponseSchema.parse(await response.json());
  // The history writes in batches: wait for the last one, then the file must hold these events and nothing else.
  const path = join(fixture.service.ideasRoot, ideaId, 'events.ndjson');
  const linesOf = async () => (await readFile(path, 'utf8')).trim().split('\n');
  await waitUntil(async () => (await linesOf()).length >= events.length, {
    timeoutMs: 5_000,
    what: 'the history on the VM',
  });
  expect((await linesOf()).map((line) => RelayEventSchema.parse(JSON.parse(line)))).toEqual(events);
  return { replayed, stored: events };
}

function isPartialMessageLine(event: RelayEvent): boolean {
  if (event.type !== 'claude:event') return false;
  const { message } = event;
  return message.type === 'stream_event' || (message.type === 'system' && message.subtype === 'status');
}

describe('streaming text over SSH with the real claude CLI', () => {
  it('relays a reply delta by delta before its claude:text, and keeps none of it in the history', async () => {
    const idea = await fixture.service.createIdea('Streamed reply');
    const client = await fixture.service.connect();
    await client.subscribe(idea.id);
    const parts = ['Streaming ', 'arrives ', 'piece ', 'by piece.'];
    fixture.model.enqueue(streamedText(...parts));
    const frames = await chat(client, idea.id, 'Stream something.');

    const deltas = framesOf(frames, 'claude:text_delta');
    const [whole] = framesOf(frames, 'claude:text');
    expect(whole?.text).toBe(parts.join(''));
    expect(deltas.map((d) => d.text)).toEqual(parts);
    expect(deltas.map((d) => d.text).join('')).toBe(whole?.text);
    for (const d of deltas) {
      expect(d).toMatchObject({ ideaId: idea.id, runId: whole?.runId, index: 0, parentToolUseId: null });
      expect(d.messageId).toBe(whole?.messageId);
      expect(frames.indexOf(d)).toBeLessThan(frames.indexOf(whole as ServerFrame));
    }
    expect(framesOf(frames, 'claude:text_reset')).toEqual([]);
    expect(frames.flatMap((f) => ('seq' in f ? [f.type] : []))).toEqual([
      'run:started',
      'claude:system',
      'claude:text',
      'claude:result',
      'run:ended',
    ]);

    const { replayed, stored } = await storedHistory(idea.id);
    expect(replayed.filter((f) => f.type.startsWith('claude:text_'))).toEqual([]);
    expect(stored.filter(isPartialMessageLine)).toEqual([]);
    expect(replayed.filter((f) => 'seq' in f)).toEqual(stored);
    expect(stored.filter((e) => e.type === 'claude:text')).toEqual([whole]);
    client.close();
  });

  it('resets the orphaned text of a stream that broke off, before the retried reply arrives whole', async () => {
    const idea = await fixture.service.createIdea('Broken stream');
    const client = await fixture.service.connect();
    await client.subscribe(idea.id);
    // The CLI retries a stream that ends in an SSE error once, without streaming (protocol §3.6).
    fixture.model.enqueue(streamError('This '), text('Recovered in one piece.'));
    const frames = await chat(client, idea.id, 'Go.');

    const live = frames.filter((f) => f.type.startsWith('claude:text'));
    expect(live.map((f) => f.type)).toEqual(['claude:text_delta', 'claude:text_reset', 'claude:text']);
    expect(live[0]).toMatchObject({ text: 'This ' });
    expect(live[2]).toMatchObject({ text: 'Recovered in one piece.' });
    expect(live[2]).not.toMatchObject({ messageId: (live[0] as Frame<'claude:text_delta'>).messageId });
    expect(frames.at(-1)).toMatchObject({ type: 'run:ended', outcome: 'completed' });
    expect(fixture.model.requests.at(-1)?.body.stream).not.toBe(true);

    const { stored } = await storedHistory(idea.id);
    expect(stored.filter(isPartialMessageLine)).toEqual([]);
    client.close();
  });

  it('relays a running tool’s heartbeat as a typed tool_progress, 30 s into a Bash command that waits', async () => {
    // Measured on 2.1.331: the CLI prints one every 30 s of a tool call; a Catalyst that did not know the type kept
    // each as an unknown line, and its page showed it as one. The command waits until the heartbeat is relayed.
    const idea = await fixture.service.createIdea('A long tool call');
    const go = join(fixture.service.projectDir(idea.id), 'go');
    fixture.model.enqueue(
      toolUse('Bash', { command: waitForFile(go), description: 'Wait for go' }),
      text('Went on.'),
    );
    const client = await fixture.service.connect();
    await client.subscribe(idea.id);
    client.send({ type: 'build', ideaId: idea.id, message: 'Wait for go.' });
    const use = await client.waitFor((f) => f.type === 'claude:tool_use');
    const heartbeat = await client.waitFor(
      (f) =>
        f.type === 'claude:event' &&
        (f.message.type === 'tool_progress' ||
          (f.message.type === 'unknown' && f.message.originalType === 'tool_progress')),
    );
    await writeFile(go, '');
    if (heartbeat.type !== 'claude:event' || use.type !== 'claude:tool_use')
      throw new Error('unexpected frames');
    expect(heartbeat.message).toMatchObject({
      type: 'tool_progress',
      tool_name: 'Bash',
      parent_tool_use_id: use.toolUseId,
      heartbeat: true,
    });
    expect(
      heartbeat.message.type === 'tool_progress' && heartbeat.message.elapsed_time_seconds,
    ).toBeGreaterThanOrEqual(29);
    await client.untilEnded(await client.waitFor((f) => f.type === 'run:started'));
    client.close();
  }, 90_000);
});
