import { chmod, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RelayEventSchema } from '@catalyst/protocol';
import { text, waitUntil } from '@catalyst/testkit';
import { useServiceFixture } from './service-harness.ts';

// Issue 16 item 7, end to end (real CLI over the test kit's sshd): appends that fail are retried, and a seq a
// browser saw is never handed out again, even when the disk never got its event before Catalyst went away.

const fixture = useServiceFixture();

async function seqsOnDisk(path: string): Promise<number[]> {
  const lines = (await readFile(path, 'utf8')).split('\n').filter(Boolean);
  return lines.map((line) => RelayEventSchema.parse(JSON.parse(line)).seq);
}

describe('the event history when its file cannot be written', () => {
  it('retries the failed appends, and after a restart an open client sees every later event', async () => {
    const idea = await fixture.service.createIdea('Read-only history');
    const eventsPath = join(fixture.service.ideasRoot, idea.id, 'events.ndjson');
    const client = await fixture.service.connect();
    await client.subscribe(idea.id);
    fixture.model.enqueue(text('First.'));
    await client.run(idea.id, 'chat', 'One.');

    // Read-only mid-life: the run's events still reach the client; their appends fail and stay queued.
    await chmod(eventsPath, 0o444);
    fixture.model.enqueue(text('Second.'));
    const second = await client.run(idea.id, 'chat', 'Two.');
    expect(await seqsOnDisk(eventsPath)).not.toContain(second.at(-1)?.seq);
    await chmod(eventsPath, 0o644);
    await waitUntil(async () => (await seqsOnDisk(eventsPath)).includes(second.at(-1)?.seq ?? -1), {
      timeoutMs: 30_000,
      what: 'the failed appends to be retried',
    });

    // Read-only again, and Catalyst goes away before it can write the third run: the disk never gets it.
    await chmod(eventsPath, 0o444);
    fixture.model.enqueue(text('Third.'));
    const third = await client.run(idea.id, 'chat', 'Three.');
    const seen = client.events().at(-1)?.seq ?? 0;
    expect(third.at(-1)?.seq).toBe(seen);
    client.close();
    await fixture.service.stop();
    await chmod(eventsPath, 0o644);
    expect(await seqsOnDisk(eventsPath)).not.toContain(seen);

    await fixture.restartService();
    const reconnected = await fixture.service.connect();
    await reconnected.subscribe(idea.id, seen);
    fixture.model.enqueue(text('Fourth.'));
    const fourth = await reconnected.run(idea.id, 'chat', 'Four.');
    expect(fourth.map((event) => event.type)).toContain('run:started');
    expect(fourth.at(-1)).toMatchObject({ type: 'run:ended', outcome: 'completed' });
    expect(fourth.every((event) => event.seq > seen)).toBe(true);
    reconnected.close();
  });

  it('answers a sinceSeq past its newest seq with the whole history and `reset`', async () => {
    const idea = await fixture.service.createIdea('Stale client');
    const client = await fixture.service.connect();
    await client.subscribe(idea.id);
    fixture.model.enqueue(text('Hello.'));
    const run = await client.run(idea.id, 'chat', 'Hi.');
    client.close();
    const stale = await fixture.service.connect();
    await stale.subscribe(idea.id, 1_000_000);
    expect(stale.frames.find((frame) => frame.type === 'subscribed')).toMatchObject({ reset: true });
    expect(stale.events().map((event) => event.seq)).toEqual(client.events().map((event) => event.seq));
    expect(stale.events().at(-1)?.seq).toBe(run.at(-1)?.seq);
    stale.close();
  });
});
