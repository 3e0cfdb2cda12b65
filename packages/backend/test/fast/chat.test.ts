import { describe, expect, it } from 'vitest';
import { reply } from '../support/in-process-host/scripted-claude.ts';
import { useFastService } from './fast-harness.ts';

// The fast tier's own check that its host carries a whole chat: two turns of one idea, their events relayed in
// order, the second in the same warm claude process and Claude session as the first (warm-turns.test.ts proves the
// same with the real CLI over sshd).

const suite = useFastService();

describe('a chat on the in-process host', () => {
  it('runs a turn and the next in the same warm process and Claude session', async () => {
    const { service, vm } = suite;
    const idea = await service.createIdea('Fast chat');
    const client = await service.connect();
    await client.subscribe(idea.id);
    vm.claude.enqueue(reply('Hello there.'), reply('Again.'));
    const claudesBefore = vm.jobs.all.length;
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
    expect(vm.jobs.all.length - claudesBefore).toBe(1);
    expect(vm.claude.messages.at(-1)).toContain('Once more');
  });
});
