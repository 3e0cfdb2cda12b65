import { describe, expect, it } from 'vitest';
import type { RelayEvent } from '@catalyst/protocol';
import { text, waitUntil } from '@catalyst/testkit';
import { type IdeaClient, type ServiceUnderTest } from '../service-harness.ts';
import { claudesOf, expectNothingLeft, sessionDirs, sessionOf } from './fast-kit.ts';
import { useFastService } from './fast-harness.ts';

// Warm turns (issue 11): after a turn, claude waits in its session on the VM for the idea's next message, which
// is written into it with no new process. A mode switch, the idle limit, the per-host cap and a delete each end
// it, and leave nothing behind.

const fixture = useFastService();

const claudes = (ideaId: string, on?: ServiceUnderTest) => claudesOf(fixture, ideaId, on);

async function chat(client: IdeaClient, ideaId: string, words: string): Promise<RelayEvent[]> {
  fixture.model.enqueue(text(words));
  return client.run(ideaId, 'chat', `Say: ${words}`);
}

describe('warm turns', () => {
  it('pre-warms a session when the idea is opened, and the first turn runs in it', async () => {
    const idea = await fixture.service.createIdea('Pre-warmed');
    const requests = fixture.model.requests.length;
    const client = await fixture.service.connect();
    await client.subscribe(idea.id);
    await waitUntil(async () => (await claudes(idea.id)) === 1, {
      timeoutMs: 15_000,
      what: 'a pre-warmed claude on the VM',
    });
    const [prewarmed] = await sessionDirs(fixture, idea.id);
    // Waiting for its first message, claude has asked the model nothing.
    expect(fixture.model.requests).toHaveLength(requests);

    const events = await chat(client, idea.id, 'First words.');
    expect(events.at(-1)).toMatchObject({ type: 'run:ended', outcome: 'completed' });
    expect(sessionOf(events)).toBe(prewarmed);
    expect(await claudes(idea.id)).toBe(1);
    client.close();
    await fixture.service.api(`/api/ideas/${idea.id}`, { method: 'DELETE' });
    await expectNothingLeft(fixture, idea.id);
  });

  it('runs a message sent while the pre-warm is still starting in that one claude, not a second', async () => {
    const idea = await fixture.service.createIdea('Quick typist');
    const client = await fixture.service.connect();
    await client.subscribe(idea.id);
    const events = await chat(client, idea.id, 'Sent at once.');
    expect(events.at(-1)).toMatchObject({ type: 'run:ended', outcome: 'completed' });
    expect(await sessionDirs(fixture, idea.id)).toEqual([sessionOf(events)]);
    expect(await claudes(idea.id)).toBe(1);
    client.close();
    await fixture.service.api(`/api/ideas/${idea.id}`, { method: 'DELETE' });
    await expectNothingLeft(fixture, idea.id);
  });

  it('ends a session idle past CATALYST_WARM_IDLE_MS on the VM, and the next turn starts a new one', async () => {
    const quick = await fixture.startAnother({ env: { CATALYST_WARM_IDLE_MS: '2000' } });
    const idea = await quick.createIdea('Idle');
    const client = await quick.connect();
    await client.subscribe(idea.id);
    const first = await chat(client, idea.id, 'Before the pause.');
    await expectNothingLeft(fixture, idea.id, quick);

    const second = await chat(client, idea.id, 'After the pause.');
    expect(second.at(-1)).toMatchObject({ type: 'run:ended', outcome: 'completed' });
    expect(sessionOf(second)).not.toBe(sessionOf(first));
    client.close();
  });

  it('keeps at most CATALYST_WARM_PER_HOST sessions per host, ending the least recently used', async () => {
    const capped = await fixture.startAnother({ env: { CATALYST_WARM_PER_HOST: '1' } });
    const [a, b] = [await capped.createIdea('First'), await capped.createIdea('Second')];
    const client = await capped.connect();
    await client.subscribe(a.id);
    await chat(client, a.id, 'From the first.');
    await waitUntil(async () => (await claudes(a.id, capped)) === 1, {
      timeoutMs: 5_000,
      what: 'a warm claude',
    });
    await client.subscribe(b.id);
    await chat(client, b.id, 'From the second.');

    await expectNothingLeft(fixture, a.id, capped);
    expect(await claudes(b.id, capped)).toBe(1);
    client.close();
  });

  // Issue 39, carried item 3: a warm session holds one of the host's run channels while it waits. On a host with
  // one (one connection, one run on it), the warm idea holds it: another idea's turn takes it.
});
