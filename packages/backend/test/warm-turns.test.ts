import { describe, expect, it } from 'vitest';
import type { RelayEvent } from '@catalyst/protocol';
import { text, waitUntil } from '@catalyst/testkit';
import { useServiceFixture, type IdeaClient, type ServiceUnderTest } from './service-harness.ts';
import { claudesOf, expectNothingLeft, sessionDirs, sessionOf } from './session-test-kit.ts';

// Warm turns (issue 11): after a turn, claude waits in its session on the VM for the idea's next message, which
// is written into it with no new process. A mode switch, the idle limit, the per-host cap and a delete each end
// it, and leave nothing behind.

const fixture = useServiceFixture();

const claudes = (ideaId: string, on?: ServiceUnderTest) => claudesOf(fixture, ideaId, on);

async function chat(client: IdeaClient, ideaId: string, words: string): Promise<RelayEvent[]> {
  fixture.model.enqueue(text(words));
  return client.run(ideaId, 'chat', `Say: ${words}`);
}

describe('warm turns', () => {
  it('runs ten chat turns in one claude, each with its own cost; a build starts one more', async () => {
    const idea = await fixture.service.createIdea('Ten turns');
    const client = await fixture.service.connect();
    await client.subscribe(idea.id);
    const turns: RelayEvent[][] = [];
    for (let turn = 1; turn <= 10; turn += 1)
      turns.push(await chat(client, idea.id, `Turn ${String(turn)}.`));

    for (const events of turns)
      expect(events.at(-1)).toMatchObject({ type: 'run:ended', outcome: 'completed' });
    const sessions = new Set(turns.map(sessionOf));
    expect(sessions.size).toBe(1);
    expect(await claudes(idea.id)).toBe(1);
    // Each turn's cost is its own, not the process's running total (the scripted turns cost the same).
    const costs = turns.map((events) => {
      const ended = events.at(-1);
      return ended?.type === 'run:ended' ? (ended.result?.costUsd ?? 0) : 0;
    });
    expect(costs[0]).toBeGreaterThan(0);
    for (const cost of costs) expect(cost).toBeCloseTo(costs[0] ?? 0, 6);
    // The conversation went on in the one Claude session: turn 10's request holds turn 1.
    expect(JSON.stringify(fixture.model.requests.at(-1))).toContain('Turn 1.');

    fixture.model.enqueue(text('Built.'));
    const build = await client.run(idea.id, 'build', 'Build it.');
    expect(build.at(-1)).toMatchObject({ type: 'run:ended', outcome: 'completed' });
    expect(sessionOf(build)).not.toBe(sessionOf(turns[0] ?? []));
    // The chat's claude ended before the build's started: one process, one session on the VM.
    expect(await claudes(idea.id)).toBe(1);
    expect(await sessionDirs(fixture, idea.id)).toEqual([sessionOf(build)]);

    await fixture.service.api(`/api/ideas/${idea.id}`, { method: 'DELETE' });
    await expectNothingLeft(fixture, idea.id);
    client.close();
  });

  // Issue 39, carried item 3: a warm session holds one of the host's run channels while it waits. On a host with
  // one (one connection, one run on it), the warm idea holds it: another idea's turn takes it.
  it('gives a turn that waits for a channel the one the least recently used warm session holds', async () => {
    const small = await fixture.startAnother({ pool: { maxConnections: 1, maxRunsPerConnection: 1 } });
    const [a, b] = [await small.createIdea('Warm'), await small.createIdea('Waiting')];
    const client = await small.connect();
    await client.subscribe(a.id);
    await chat(client, a.id, 'From the warm one.');
    await waitUntil(async () => (await claudes(a.id, small)) === 1, {
      timeoutMs: 10_000,
      what: 'a warm claude',
    });

    await client.subscribe(b.id);
    const other = await chat(client, b.id, 'From the waiting one.');
    expect(other.at(-1)).toMatchObject({ type: 'run:ended', outcome: 'completed' });
    expect(small.logText()).toContain('ended a warm session: a run waits for its channel');
    expect(await claudes(a.id, small)).toBe(0);
    // The first idea's next turn takes the channel back and resumes its Claude session: the conversation goes on.
    const again = await chat(client, a.id, 'Back to the first.');
    expect(again.at(-1)).toMatchObject({ type: 'run:ended', outcome: 'completed' });
    expect(JSON.stringify(fixture.model.requests.at(-1))).toContain('From the warm one.');
    client.close();
  });
});
