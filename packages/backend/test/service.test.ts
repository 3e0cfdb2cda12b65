import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { collectTexts, longRunningCommand, text, toolUse, waitUntil } from '@catalyst/testkit';
import { useServiceFixture } from './service-harness.ts';

// The whole service, end to end: REST and WebSocket as a browser uses them, runs of the real claude CLI over the
// test kit's real sshd, and the scripted model behind the CLI.

const fixture = useServiceFixture();

describe('the Catalyst service over SSH with the real claude CLI', () => {
  it('relays a chat as it happens and records the turn in meta.json', async () => {
    const idea = await fixture.service.createIdea('Chat relay');
    const client = await fixture.service.connect();
    await client.subscribe(idea.id);
    fixture.model.enqueue(text('Hello from the VM.'));
    const events = await client.run(idea.id, 'chat', 'Say hello');

    expect(events.map((e) => e.type)).toEqual([
      'idea:status',
      'run:started',
      'claude:system',
      'claude:text',
      'claude:result',
      'run:ended',
    ]);
    expect(events.find((e) => e.type === 'claude:text')).toMatchObject({ text: 'Hello from the VM.' });
    expect(events.at(-1)).toMatchObject({ type: 'run:ended', outcome: 'completed' });
    const seqs = events.map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    const meta = await (await fixture.service.api(`/api/ideas/${idea.id}`)).json();
    expect(meta).toMatchObject({ idea: { meta: { status: 'chatting', totals: { runs: 1, turns: 1 } } } });
    client.close();
  });

  it('carries the chat into the build, which writes into project/ on the VM', async () => {
    const idea = await fixture.service.createIdea('Chat then build');
    const client = await fixture.service.connect();
    await client.subscribe(idea.id);
    fixture.model.enqueue(text('A greeting script it is.'));
    const chat = await client.run(idea.id, 'chat', 'I want a script that prints hello.');
    const target = join(fixture.service.projectDir(idea.id), 'hello.py');
    fixture.model.enqueue(
      toolUse('Write', { file_path: target, content: 'print("hello")\n' }),
      text('Written.'),
    );
    const build = await client.run(idea.id, 'build', 'Build it.');

    expect(build.at(-1)).toMatchObject({ type: 'run:ended', outcome: 'completed' });
    expect(await readFile(target, 'utf8')).toBe('print("hello")\n');
    const sessionOf = (events: typeof chat) => events.find((e) => e.type === 'claude:system');
    expect(sessionOf(build)).toMatchObject({
      sessionId: (sessionOf(chat) as { sessionId: string }).sessionId,
    });
    const buildRequest = fixture.model.requests.at(-2);
    expect(buildRequest && collectTexts(buildRequest)).toEqual(
      expect.arrayContaining(['I want a script that prints hello.', 'A greeting script it is.', 'Build it.']),
    );
    const meta = await (await fixture.service.api(`/api/ideas/${idea.id}`)).json();
    expect(meta).toMatchObject({
      idea: { meta: { status: 'built', lastMode: 'build', totals: { runs: 2 } } },
    });
    client.close();
  });

  it('keeps chat read-only: a write is refused, relayed, and nothing is written', async () => {
    const idea = await fixture.service.createIdea('Read-only chat');
    const client = await fixture.service.connect();
    await client.subscribe(idea.id);
    const target = join(fixture.service.projectDir(idea.id), 'nope.txt');
    fixture.model.enqueue(
      toolUse('Write', { file_path: target, content: 'nope\n' }),
      text('I cannot write in chat.'),
    );
    const events = await client.run(idea.id, 'chat', 'Write a file.');

    const result = events.find((e) => e.type === 'claude:tool_result');
    expect(result).toMatchObject({ isError: true });
    expect(existsSync(target)).toBe(false);
    expect(events.at(-1)).toMatchObject({ type: 'run:ended', outcome: 'completed' });
    client.close();
  });

  it('cancels a build while a Bash tool runs, and leaves nothing on the VM', async () => {
    const idea = await fixture.service.createIdea('Cancel me');
    const client = await fixture.service.connect();
    await client.subscribe(idea.id);
    fixture.model.enqueue(
      toolUse('Bash', { command: longRunningCommand(313), description: 'Wait a long time' }),
    );
    const from = client.frames.length;
    client.send({ type: 'build', ideaId: idea.id, message: 'Sleep.' });
    const started = await client.waitFor((f) => f.type === 'run:started', from);
    // The run's own processes on the VM, by run tag and place: the tool's sleep and claude.
    await waitUntil(
      async () => (await fixture.runProcesses(idea.id)).some((p) => p.cmdline === 'sleep 313'),
      { timeoutMs: 20_000, what: "the Bash tool's sleep, carrying the run tag" },
    );
    const running = await fixture.runProcesses(idea.id);
    expect(running.some((p) => p.cmdline.startsWith(fixture.claudePath))).toBe(true);
    client.send({ type: 'cancel', ideaId: idea.id });
    const events = await client.untilEnded(started);

    expect(events.at(-1)).toMatchObject({ type: 'run:ended', outcome: 'cancelled' });
    await waitUntil(async () => (await fixture.runProcesses(idea.id)).length === 0, {
      timeoutMs: 15_000,
      what: 'nothing of the run left',
    });
    const meta = await (await fixture.service.api(`/api/ideas/${idea.id}`)).json();
    expect(meta).toMatchObject({ idea: { meta: { status: 'chatting' }, running: false } });
    client.close();
  });
});
