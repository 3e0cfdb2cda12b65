import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { RelayEvent, RelayEventDraft, ServerFrame, SubscribedFrame } from '@catalyst/protocol';
import { createTempDir, text, waitUntil } from '@catalyst/testkit';
import { createLocalFiles } from '../src/host/local-files.ts';
import { IdeaHistory } from '../src/ideas/event-history.ts';
import { RESERVE_BLOCK } from '../src/ideas/seq-reservation.ts';
import { spawnCatalyst, type CatalystProcess } from './catalyst-process-kit.ts';
import { bearer, startServer } from './server-harness.ts';
import { openClient } from './server-ws-client.ts';
import { useServiceFixture, type IdeaClient } from './service-harness.ts';
import { lineDraft } from './history-test-kit.ts';

// Issue 25, finding 0: a killed Catalyst leaves its seq reservation (up to RESERVE_BLOCK above the newest event)
// for the next one, which numbers from above it. The `subscribed` frame's `lastSeq` is the newest event's seq all
// the same, so a client that holds that event knows it caught up; only a `sinceSeq` past the reservation is stale.

const fixture = useServiceFixture();

const ideaId = 'idea-0123456789abcdef';

const draft = (n: number): RelayEventDraft => lineDraft(ideaId, n, 'm');

/** Subscribes and resolves with the answer and the relay events that came with it (the replay). */
async function subscribeOnce(
  client: IdeaClient,
  id: string,
  sinceSeq?: number,
): Promise<{ subscribed: SubscribedFrame; replay: RelayEvent[] }> {
  const from = client.frames.length;
  await client.subscribe(id, sinceSeq);
  const frames = client.frames.slice(from);
  const subscribed = frames.find((frame): frame is SubscribedFrame => frame.type === 'subscribed');
  if (subscribed === undefined) throw new Error('no subscribed frame');
  return { subscribed, replay: frames.slice(0, frames.indexOf(subscribed)).flatMap(relayEvent) };
}

function relayEvent(frame: ServerFrame): RelayEvent[] {
  return 'seq' in frame ? [frame] : [];
}

describe('the history reopened after a kill', () => {
  it('subscribes with the newest event’s seq as lastSeq, not the reservation it numbers from', async () => {
    const dir = await createTempDir('history-subscribed');
    onTestFinished(() => dir.remove());
    const path = join(dir.path, 'events.ndjson');
    const killed = await IdeaHistory.open({ files: createLocalFiles(), path });
    for (let n = 1; n <= 3; n++) killed.append(draft(n));
    await killed.flush();

    // No close: the reservation stays on the file, as a SIGKILL leaves it.
    const reopened = await IdeaHistory.open({ files: createLocalFiles(), path });
    onTestFinished(async () => {
      await reopened.close();
      await killed.close();
    });
    expect(reopened.lastSeq).toBeGreaterThan(3);
    const replayed: number[] = [];
    const whole = await reopened.subscribe(0, (event) => replayed.push(event.seq));
    expect(replayed).toEqual([1, 2, 3]);
    expect(whole.lastSeq).toBe(3);
    whole.unsubscribe();
    const caughtUp = await reopened.subscribe(3, (event) => replayed.push(event.seq));
    expect(caughtUp.lastSeq).toBe(3);
    caughtUp.unsubscribe();

    const next = reopened.append(draft(4));
    expect(next.seq).toBeGreaterThan(reopened.lastSeq - RESERVE_BLOCK);
    const later = await reopened.subscribe(3, (event) => replayed.push(event.seq));
    expect(later.lastSeq).toBe(next.seq);
    expect(replayed).toEqual([1, 2, 3, next.seq]);
    later.unsubscribe();
  });
});

describe('the subscribed frame over a real WebSocket, after a restart that left a seq reservation', () => {
  it('the edge: lastSeq is the newest event’s; a sinceSeq within the reservation is not stale, one past it is', async () => {
    const server = await startServer();
    onTestFinished(() => server.close());
    const { id } = server.service.seedIdea();
    for (const words of ['one', 'two', 'three']) server.service.emitText(id, words);
    server.service.leaveReservation(id, RESERVE_BLOCK);
    const client = await openClient(server.wsUrl, { headers: bearer() });
    onTestFinished(() => {
      client.socket.terminate();
    });

    client.send({ type: 'subscribe', ideaId: id, requestId: 'whole' });
    for (const seq of [1, 2, 3]) expect(await client.next()).toMatchObject({ type: 'claude:text', seq });
    const answer = { type: 'subscribed', ideaId: id, lastSeq: 3, running: false };
    expect(await client.next()).toEqual({ ...answer, requestId: 'whole' });
    client.send({ type: 'subscribe', ideaId: id, sinceSeq: 3 + RESERVE_BLOCK, requestId: 'within' });
    expect(await client.next()).toEqual({ ...answer, requestId: 'within' });
    client.send({ type: 'subscribe', ideaId: id, sinceSeq: 4 + RESERVE_BLOCK, requestId: 'stale' });
    for (const seq of [1, 2, 3]) expect(await client.next()).toMatchObject({ type: 'claude:text', seq });
    expect(await client.next()).toEqual({ ...answer, requestId: 'stale', reset: true });
    server.service.emitText(id, 'four');
    expect(await client.next()).toMatchObject({ type: 'claude:text', seq: 4 + RESERVE_BLOCK, text: 'four' });
  });

  it('a whole Catalyst killed, then started again: the same, and the next chat comes live', async () => {
    const idea = await fixture.service.createIdea('Killed while idle');
    const first = await fixture.service.connect();
    await first.subscribe(idea.id);
    fixture.model.enqueue(text('Talked it through.'));
    await first.run(idea.id, 'chat', 'Let us talk.');
    const newest = first.events().at(-1)?.seq ?? 0;
    expect(newest).toBeGreaterThan(0);
    first.close();
    const { configDir, ideasRoot } = fixture.service;
    const settings = {
      sshd: fixture.sshd,
      user: fixture.sshd.users.bash,
      claudePath: fixture.claudePath,
      reuse: { configDir, ideasRoot },
      // No claude waits warm for the next turn: a killed Catalyst would leave it on the VM until its lease lapses.
      env: { CATALYST_WARM_PER_HOST: '0' },
    };
    // From here the idea's Catalyst is a process of its own, which SIGKILL really ends.
    await fixture.service.stop();
    let running: CatalystProcess | undefined;
    try {
      running = await spawnCatalyst(settings);
      // Its subscribe opens the history, which reserves seqs ahead; the kill leaves that reservation.
      const opening = await running.connect();
      expect((await subscribeOnce(opening, idea.id, newest)).subscribed.lastSeq).toBe(newest);
      opening.close();
      await running.kill();

      running = await spawnCatalyst(settings);
      const after = await running.connect();
      const whole = await subscribeOnce(after, idea.id);
      expect(whole.subscribed).toEqual({
        type: 'subscribed',
        ideaId: idea.id,
        lastSeq: newest,
        running: false,
      });
      expect(whole.replay.at(-1)?.seq).toBe(newest);
      const within = await subscribeOnce(after, idea.id, newest + RESERVE_BLOCK / 2);
      expect(within.subscribed).toEqual(whole.subscribed);
      expect(within.replay).toEqual([]);
      const stale = await subscribeOnce(after, idea.id, newest + 2 * RESERVE_BLOCK);
      expect(stale.subscribed).toEqual({ ...whole.subscribed, reset: true });
      expect(stale.replay).toEqual(whole.replay);

      fixture.model.enqueue(text('Still here.'));
      const next = await after.run(idea.id, 'chat', 'Still there?');
      expect(next.at(-1)).toMatchObject({ type: 'run:ended', outcome: 'completed' });
      expect(next[0]?.seq).toBeGreaterThan(newest + RESERVE_BLOCK / 2);
      after.close();
      // With no warm sessions the turn's claude exits once its input is closed, which follows its run:ended: only
      // then is nothing of the idea's left for the kill below to strand until its lease lapses.
      await waitUntil(async () => (await fixture.runProcesses(idea.id)).length === 0, {
        timeoutMs: 10_000,
        what: 'the turn`s claude to exit',
      });
    } finally {
      await running?.kill();
      await fixture.restartService();
    }
    expect(await fixture.runProcesses(idea.id)).toEqual([]);
    expect((await fixture.service.api(`/api/ideas/${idea.id}`, { method: 'DELETE' })).status).toBe(204);
  }, 90_000);
});
