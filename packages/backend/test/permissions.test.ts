import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { text, toolUse } from '@catalyst/testkit';
import { openIdeaWith, startRun, toolResultsOf, waitForPermission } from './question-client.ts';
import { useServiceFixture } from './service-harness.ts';

// permissionPolicy `ask` end to end (claude-cli-protocol.md §8.2): each tool call the CLI asks about in a build
// reaches the browser, and the person's allow or deny is what the real CLI does.

const fixture = useServiceFixture();

async function openAskingIdea(title: string) {
  const { idea, client, patched } = await openIdeaWith(fixture.service, title, { permissionPolicy: 'ask' });
  expect(patched).toMatchObject({ idea: { meta: { permissionPolicy: 'ask' } } });
  return { idea, client };
}

describe('permission prompts (permissionPolicy ask)', () => {
  it('denies a write with the person`s words, which reach the model', async () => {
    const { idea, client } = await openAskingIdea('Deny a write');
    const target = join(fixture.service.projectDir(idea.id), 'denied.txt');
    const base = fixture.model.requests.length;
    fixture.model.enqueue(toolUse('Write', { file_path: target, content: 'no\n' }), text('Understood.'));
    const started = await startRun(client, { ideaId: idea.id, mode: 'build', message: 'Write it.' });
    const request = await waitForPermission(client, 0);
    expect(request).toMatchObject({ toolName: 'Write', input: { file_path: target } });
    client.send({
      type: 'permission',
      ideaId: idea.id,
      requestId: request.requestId,
      decision: 'deny',
      message: 'Not this file, please.',
    });
    const events = await client.untilEnded(started);

    expect(await toolResultsOf(fixture.model, base + 1)).toEqual([
      { content: 'Not this file, please.', isError: true },
    ]);
    expect(existsSync(target)).toBe(false);
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'claude:permission_closed', reason: 'denied' }),
    );
    client.close();
  });

  it('cancels a run while a permission waits, and leaves nothing on the VM', async () => {
    const { idea, client } = await openAskingIdea('Cancel a permission');
    const target = join(fixture.service.projectDir(idea.id), 'never.txt');
    fixture.model.enqueue(toolUse('Write', { file_path: target, content: 'never\n' }));
    const started = await startRun(client, { ideaId: idea.id, mode: 'build', message: 'Write it.' });
    await waitForPermission(client, 0);
    client.send({ type: 'cancel', ideaId: idea.id });
    const events = await client.untilEnded(started);

    expect(events).toContainEqual(
      expect.objectContaining({ type: 'claude:permission_closed', reason: 'cancelled' }),
    );
    expect(events.at(-1)).toMatchObject({ type: 'run:ended', outcome: 'cancelled' });
    expect(existsSync(target)).toBe(false);
    expect(await fixture.runProcesses(idea.id)).toEqual([]);
    client.close();
  });
});
