import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { text, toolUse } from '@catalyst/testkit';
import { useServiceFixture } from './service-harness.ts';
import { claudesOf, sessionOf } from './session-test-kit.ts';

// Issue 39: a warm claude runs a turn of its own while it waits (a background command of the last turn ended:
// measured on 2.1.331, the CLI tells the model in a turn nobody sent). Nobody reads that turn; a `can_use_tool` it
// asks would wait for ever, and the idea's next message with it. Such a process is retired, its can_use_tool
// denied, and the next turn runs in a new claude resuming the session, with its own answer.

const fixture = useServiceFixture();

describe('a warm claude that runs a turn of its own', () => {
  it('is retired, and the next build gets its own answer at once, not the wait for the inactivity timeout', async () => {
    const idea = await fixture.service.createIdea('Own turn');
    const project = fixture.service.projectDir(idea.id);
    const unasked = join(project, 'unasked.txt');
    const client = await fixture.service.connect();
    await client.subscribe(idea.id);
    const base = fixture.model.requests.length;
    fixture.model.enqueue(
      toolUse('Bash', { command: 'sleep 2; echo done', description: 'Briefly', run_in_background: true }),
      text('Started it.'),
      // The CLI's own turn once the command ended: a Write the build's policy would allow, were anyone asked.
      toolUse('Write', { file_path: unasked, content: 'nobody asked\n' }),
      text('Noted.'),
      text('The next build’s own answer.'),
    );
    const first = await client.run(idea.id, 'build', 'Start it in the background.');
    expect(first.at(-1)).toMatchObject({ type: 'run:ended', outcome: 'completed' });
    // The own turn has asked the model (its Write follows) while the claude waited for the next message.
    await fixture.model.waitForRequest(base + 2);

    const startedAt = Date.now();
    const next = await client.run(idea.id, 'build', 'And now?');
    expect(next.at(-1)).toMatchObject({
      type: 'run:ended',
      outcome: 'completed',
      result: { result: 'The next build’s own answer.' },
    });
    // Far below the inactivity timeout (10 minutes) the next message waited for before.
    expect(Date.now() - startedAt).toBeLessThan(40_000);
    expect(existsSync(unasked)).toBe(false);
    // The CLI's queue bookkeeping for a message sent with a uuid (command_lifecycle) is no line of the transcript.
    const unknown = [...first, ...next].filter(
      (event) => event.type === 'claude:event' && event.message.type === 'unknown',
    );
    expect(unknown).toEqual([]);
    // A new claude, in the same Claude session (the own turn is in its conversation).
    expect(await claudesOf(fixture, idea.id)).toBe(1);
    expect(sessionOf(next)).not.toBe(sessionOf(first));
    client.close();
  });
});
