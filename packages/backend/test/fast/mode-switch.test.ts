import { describe, expect, it } from 'vitest';
import type { RunMode } from '@catalyst/protocol';
import { text, waitUntil } from '@catalyst/testkit';
import { claudeJobsOf, expectNothingLeft, sessionDirs, sessionOf } from './fast-kit.ts';
import { useFastService } from './fast-harness.ts';

// Mode switches (issue 30), what the service does with them: the idea's waiting claude is of the mode the page
// shows. The end-to-end file (../mode-switch.test.ts) keeps what only the real CLI shows (its session's transcript
// across switches, its own turn after a background command).

const fixture = useFastService();

/** The modes of the idea's claude processes: chat's command restricts its tools (`--tools`), build's not. */
function claudeModes(ideaId: string): RunMode[] {
  return claudeJobsOf(fixture, ideaId).map((job) => (job.spec.argv.includes('--tools') ? 'chat' : 'build'));
}

describe('mode switches', () => {
  it('pre-warms the shown mode when a run of the other mode ends', async () => {
    const idea = await fixture.service.createIdea('Switched while it ran');
    const client = await fixture.service.connect();
    await client.subscribe(idea.id);
    fixture.model.enqueue(text('Talked.'));
    const started = client.waitFor((frame) => frame.type === 'run:started' && frame.ideaId === idea.id);
    client.send({ type: 'chat', ideaId: idea.id, message: 'Talk first.' });
    // The person switches while the chat runs: nothing starts meanwhile, a build claude waits after it.
    client.send({ type: 'mode', ideaId: idea.id, mode: 'build' });
    const chat = await client.untilEnded(await started);
    expect(chat.at(-1)).toMatchObject({ type: 'run:ended', outcome: 'completed' });
    await waitUntil(() => claudeModes(idea.id).join() === 'build', {
      timeoutMs: 15_000,
      what: 'a build claude waiting after the chat',
    });
    const [waiting] = await sessionDirs(fixture, idea.id);

    fixture.model.enqueue(text('Built.'));
    const run = await client.run(idea.id, 'build', 'Build it.');
    expect(sessionOf(run)).toBe(waiting);
    client.close();
    await fixture.service.api(`/api/ideas/${idea.id}`, { method: 'DELETE' });
    await expectNothingLeft(fixture, idea.id);
  });

  it('answers a mode for an idea that does not exist with IDEA_NOT_FOUND', async () => {
    const client = await fixture.service.connect();
    client.send({ type: 'mode', ideaId: 'idea-0000000000000000', mode: 'build', requestId: 'm1' });
    const error = await client.waitFor((frame) => frame.type === 'error' && frame.requestId === 'm1');
    expect(error).toMatchObject({ code: 'IDEA_NOT_FOUND' });
    client.close();
  });
});
