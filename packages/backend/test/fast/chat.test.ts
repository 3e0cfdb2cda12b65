import { describe, expect, it } from 'vitest';
import { text } from '@catalyst/testkit';
import { useFastService } from './fast-harness.ts';

// The fast tier's own check that its host carries a whole chat: two turns of one idea, their events relayed in
// order, the second in the same warm claude process and Claude session as the first, with the first in its context
// (warm-turns.test.ts proves the same with the real CLI over sshd).

const suite = useFastService();

describe('a chat on the in-process host', () => {
  it('runs a turn and the next in the same warm process and Claude session', async () => {
    const { service, vm, model } = suite;
    const idea = await service.createIdea('Fast chat');
    const client = await service.connect();
    await client.subscribe(idea.id);
    model.enqueue(text('Hello there.'), text('Again.'));
    const jobsBefore = vm.jobs.all.length;
    const first = await client.run(idea.id, 'chat', 'Hi');
    const second = await client.run(idea.id, 'chat', 'Once more');
    client.close();
    const typesOf = (events: typeof first) => events.map((event) => event.type);
    expect(typesOf(first)).toEqual(
      expect.arrayContaining(['run:started', 'claude:system', 'claude:text', 'claude:result', 'run:ended']),
    );
    const outcomes = [...first, ...second].flatMap((event) =>
      event.type === 'run:ended' ? [event.outcome] : [],
    );
    expect(outcomes).toEqual(['completed', 'completed']);
    const sessions = [...first, ...second].flatMap((event) =>
      event.type === 'claude:system' ? [event.sessionId] : [],
    );
    expect(sessions).toHaveLength(2);
    expect(new Set(sessions).size).toBe(1);
    expect(vm.jobs.all.length - jobsBefore).toBe(1);
    const lastRequest = await model.waitForRequest(model.requests.length - 1);
    expect(lastRequest.body.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
  });
});
