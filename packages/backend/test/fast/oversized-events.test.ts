import { describe, expect, it } from 'vitest';
import { MAX_RELAY_EVENT_BYTES } from '@catalyst/protocol';
import { text, toolUse } from '@catalyst/testkit';
import { useFastService } from './fast-harness.ts';

// Issue 16, item 9: one event larger than a client's live send bound (8 MiB) used to close every subscriber with 4008,
// and close them again on each reconnect's replay. The CLI relays the model's tool_use line whole (here the in-process
// host's scripted claude).

const fixture = useFastService();
const KIB = 1024;

describe('an oversized event', () => {
  it('arrives capped and marked, keeps every client connected, and replays on reconnect', async () => {
    const idea = await fixture.service.createIdea('Huge tool input');
    const watcher = await fixture.service.connect();
    const client = await fixture.service.connect();
    await watcher.subscribe(idea.id);
    await client.subscribe(idea.id);
    // 20 strings of 900 KiB (each under the 1 MiB string cap): 18 MiB of input in one tool_use line.
    const notes = Array.from({ length: 20 }, (_, index) => String(index % 10).repeat(900 * KIB));
    fixture.model.enqueue(
      toolUse('Write', {
        file_path: `${fixture.service.projectDir(idea.id)}/big.txt`,
        content: 'small',
        notes,
      }),
      text('Done.'),
    );
    const closedEarly = Promise.race([watcher.closed, client.closed]).then(({ code }) => code);
    const events = await Promise.race([
      client.run(idea.id, 'build', 'Write it.'),
      closedEarly.then((code) => Promise.reject(new Error(`a client was closed with ${String(code)}`))),
    ]);

    const big = events.find((event) => event.type === 'claude:tool_use');
    expect(big).toMatchObject({ type: 'claude:tool_use', name: 'Write', truncated: true });
    expect(Buffer.byteLength(JSON.stringify(big))).toBeLessThanOrEqual(MAX_RELAY_EVENT_BYTES);
    expect(events.at(-1)).toMatchObject({ type: 'run:ended' });
    await watcher.waitFor((frame) => frame.type === 'run:ended' && frame.ideaId === idea.id);

    const again = await fixture.service.connect();
    await again.subscribe(idea.id, 0);
    expect(again.events().find((event) => event.type === 'claude:tool_use')).toEqual(big);
    for (const each of [watcher, client, again]) each.close();
  });
});
