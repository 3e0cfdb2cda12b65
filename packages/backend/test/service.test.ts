import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { collectTexts, text, toolUse } from '@catalyst/testkit';
import { useServiceFixture } from './service-harness.ts';

// The whole service, end to end: REST and WebSocket as a browser uses them, runs of the real claude CLI over the
// test kit's real sshd, and the scripted model behind the CLI. A cancel with a tool's process running: on the VM
// in ../../frontend/test/runs.test.ts, from the cancel frame in fast/service.test.ts.

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
});
