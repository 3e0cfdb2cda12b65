import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { text, toolUse } from '@catalyst/testkit';
import { openIdeaWith, startRun, waitForError, waitForPermission } from '../question-client.ts';
import { useFastService } from './fast-harness.ts';

// permissionPolicy `ask` on the in-process host (claude-cli-protocol.md §8.2; the real CLI's in
// ../permissions.test.ts): each tool call the CLI asks about in a build reaches the person, whose answer decides.

const fixture = useFastService();

async function openAskingIdea(title: string) {
  const { idea, client, patched } = await openIdeaWith(fixture.service, title, { permissionPolicy: 'ask' });
  expect(patched).toMatchObject({ idea: { meta: { permissionPolicy: 'ask' } } });
  return { idea, client };
}

describe('permission prompts (permissionPolicy ask)', () => {
  it('allows a write, which runs; a second answer is refused', async () => {
    const { idea, client } = await openAskingIdea('Allow a write');
    const target = join(fixture.service.projectDir(idea.id), 'allowed.txt');
    fixture.model.enqueue(toolUse('Write', { file_path: target, content: 'yes\n' }), text('Written.'));
    const started = await startRun(client, { ideaId: idea.id, mode: 'build', message: 'Write it.' });
    const request = await waitForPermission(client, 0);
    const answer = { type: 'permission', ideaId: idea.id, requestId: request.requestId, decision: 'allow' };
    client.send(answer);
    client.send(answer);
    expect(await waitForError(client, request.requestId)).toMatchObject({
      code: 'PERMISSION_REQUEST_NOT_FOUND',
    });
    const events = await client.untilEnded(started);

    expect(await readFile(target, 'utf8')).toBe('yes\n');
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'claude:permission_closed', reason: 'allowed' }),
    );
    expect(events.at(-1)).toMatchObject({ type: 'run:ended', outcome: 'completed' });
    client.close();
  });

  it('remembers an allow: the same kind of call is not asked about again', async () => {
    const { idea, client } = await openAskingIdea('Remember');
    const first = join(fixture.service.projectDir(idea.id), 'first.txt');
    const second = join(fixture.service.projectDir(idea.id), 'second.txt');
    fixture.model.enqueue(
      toolUse('Write', { file_path: first, content: '1\n' }),
      toolUse('Write', { file_path: second, content: '2\n' }),
      text('Both written.'),
    );
    const started = await startRun(client, { ideaId: idea.id, mode: 'build', message: 'Write two.' });
    const request = await waitForPermission(client, 0);
    expect(request.suggestions?.length ?? 0).toBeGreaterThan(0);
    client.send({
      type: 'permission',
      ideaId: idea.id,
      requestId: request.requestId,
      decision: 'allow',
      remember: true,
    });
    const events = await client.untilEnded(started);

    expect(events.filter((e) => e.type === 'claude:permission_request')).toHaveLength(1);
    expect(await readFile(second, 'utf8')).toBe('2\n');
    client.close();
  });
});
