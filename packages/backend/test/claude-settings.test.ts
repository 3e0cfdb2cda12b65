import { existsSync } from 'node:fs';
import { chown, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ServerFrame } from '@catalyst/protocol';
import { colorQuestion, text, toolUse, writeClaudeSettings } from '@catalyst/testkit';
import { startRun } from './question-client.ts';
import { useServiceFixture, type IdeaClient } from './service-harness.ts';

// Which Claude settings each kind of run loads (docs/security.md, "Claude settings per run"), with the real CLI
// over the test kit's sshd. The VM user's ~/.claude/settings.json is what points its claude at the scripted model,
// so every run here also shows that the user's settings still apply.

const fixture = useServiceFixture();

// Any settings file the user's settings were changed in is rewritten as the fixture had it.
afterEach(async () => {
  await writeClaudeSettings(fixture.sshd.users.bash, fixture.model.url);
});

async function openIdea(title: string, policy: Record<string, unknown> = {}) {
  const idea = await fixture.service.createIdea(title);
  if (Object.keys(policy).length > 0) {
    const patched = await fixture.service.api(`/api/ideas/${idea.id}`, {
      method: 'PATCH',
      body: JSON.stringify(policy),
    });
    expect(patched.status).toBe(200);
  }
  const client = await fixture.service.connect();
  await client.subscribe(idea.id);
  return { idea, client, project: fixture.service.projectDir(idea.id) };
}

/** Writes `.claude/<name>` into the idea's project, as a cloned repository or an earlier build would have. */
async function plantProjectSettings(project: string, name: string, settings: unknown): Promise<void> {
  await mkdir(join(project, '.claude'), { recursive: true });
  await writeFile(join(project, '.claude', name), JSON.stringify(settings));
}

/** A UserPromptSubmit hook that appends what it was given (the prompt, as JSON) to `log`. */
function promptHook(log: string) {
  return { hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: `cat >> '${log}'` }] }] } };
}

/** Adds permission rules to the VM user's own ~/.claude/settings.json (restored after each test). */
async function addUserPermissions(permissions: unknown): Promise<void> {
  const user = fixture.sshd.users.bash;
  const path = join(user.home, '.claude', 'settings.json');
  const current = z.record(z.string(), z.unknown()).parse(JSON.parse(await readFile(path, 'utf8')));
  await writeFile(path, JSON.stringify({ ...current, permissions }), { mode: 0o600 });
  const owner = await stat(user.home);
  await chown(path, owner.uid, owner.gid);
}

/** The first permission request or the end of the run started by `started`, whichever comes first. */
function firstPermissionOrEnd(client: IdeaClient, started: ServerFrame): Promise<ServerFrame> {
  const runId = 'runId' in started ? started.runId : undefined;
  return client.waitFor(
    (f) => (f.type === 'claude:permission_request' || f.type === 'run:ended') && f.runId === runId,
  );
}

describe('Claude settings per kind of run', () => {
  it("a chat run does not run the project's hooks; a build under permissionPolicy auto does", async () => {
    const { idea, client, project } = await openIdea('Project hook');
    const log = join(project, 'hook-log');
    await plantProjectSettings(project, 'settings.json', promptHook(log));
    await plantProjectSettings(project, 'settings.local.json', promptHook(log));

    fixture.model.enqueue(text('Just talking.'));
    const chat = await client.run(idea.id, 'chat', 'chat message');
    expect(chat.at(-1)).toMatchObject({ type: 'run:ended', outcome: 'completed' });
    expect(existsSync(log)).toBe(false);

    // The same files do act on a build: the hook above is one the CLI runs.
    fixture.model.enqueue(text('Built.'));
    const build = await client.run(idea.id, 'build', 'build message');
    expect(build.at(-1)).toMatchObject({ type: 'run:ended', outcome: 'completed' });
    expect(await readFile(log, 'utf8')).toContain('build message');
    client.close();
  });

  it("the question answerer does not run the project's hooks", async () => {
    const { idea, client, project } = await openIdea('Answerer hook', { questionPolicy: 'auto' });
    const log = join(project, 'hook-log');
    await plantProjectSettings(project, 'settings.json', promptHook(log));
    const base = fixture.model.requests.length;
    fixture.model.enqueue(
      toolUse('AskUserQuestion', { questions: [colorQuestion] }),
      text(JSON.stringify({ answers: { [colorQuestion.question]: 'Blue' } })),
      text('Blue it is.'),
    );
    const events = await client.run(idea.id, 'chat', 'Pick a color.');

    expect(events).toContainEqual(
      expect.objectContaining({ type: 'claude:question_answered', source: 'auto' }),
    );
    expect(fixture.model.requests).toHaveLength(base + 3);
    expect(existsSync(log)).toBe(false);
    client.close();
  });

  it("permissionPolicy ask: a Write the user's settings allow still asks the person", async () => {
    await addUserPermissions({ allow: ['Write'] });
    const { idea, client, project } = await openIdea('User allow', { permissionPolicy: 'ask' });
    const target = join(project, 'asked.txt');
    fixture.model.enqueue(toolUse('Write', { file_path: target, content: 'yes\n' }), text('Written.'));
    const started = await startRun(client, { ideaId: idea.id, mode: 'build', message: 'Write it.' });
    const first = await firstPermissionOrEnd(client, started);
    expect(first).toMatchObject({ type: 'claude:permission_request', toolName: 'Write' });
    expect(existsSync(target)).toBe(false);

    if (first.type === 'claude:permission_request') {
      client.send({ type: 'permission', ideaId: idea.id, requestId: first.requestId, decision: 'allow' });
    }
    const events = await client.untilEnded(started);
    expect(events.at(-1)).toMatchObject({ type: 'run:ended', outcome: 'completed' });
    expect(await readFile(target, 'utf8')).toBe('yes\n');
    client.close();
  });

  it("permissionPolicy ask: the project's local allow rules and hooks do not act", async () => {
    const { idea, client, project } = await openIdea('Local allow', { permissionPolicy: 'ask' });
    const log = join(project, 'hook-log');
    const target = join(project, 'asked.txt');
    await plantProjectSettings(project, 'settings.local.json', {
      permissions: { allow: ['Write'] },
      ...promptHook(log),
    });
    fixture.model.enqueue(toolUse('Write', { file_path: target, content: 'no\n' }), text('Not written.'));
    const started = await startRun(client, { ideaId: idea.id, mode: 'build', message: 'Write it.' });
    const first = await firstPermissionOrEnd(client, started);
    expect(first).toMatchObject({ type: 'claude:permission_request', toolName: 'Write' });

    if (first.type === 'claude:permission_request') {
      client.send({ type: 'permission', ideaId: idea.id, requestId: first.requestId, decision: 'deny' });
    }
    await client.untilEnded(started);
    expect(existsSync(target)).toBe(false);
    expect(existsSync(log)).toBe(false);
    client.close();
  });
});
