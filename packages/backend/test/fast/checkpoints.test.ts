import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ApiErrorBodySchema,
  CheckpointDiffResponseSchema,
  CheckpointListResponseSchema,
  CheckpointRestoreResponseSchema,
  FileContentResponseSchema,
  FileListResponseSchema,
  type CheckpointView,
  type RelayEvent,
} from '@catalyst/protocol';
import { type RecordedRequest, text, toolUse, waitForFile, waitUntil } from '@catalyst/testkit';
import { type ServiceUnderTest } from '../service-harness.ts';
import { useFastService } from './fast-harness.ts';

// Checkpoints and files (issue 13), on the in-process host (its git real, on this machine): every build ends with a
// commit of project/ in git on the host, which a person lists, reads as a diff, and restores; the files of project/ are
// listed and read, and no path leads outside it.

const fixture = useFastService();

function bash(command: string) {
  return toolUse('Bash', { command, description: 'Change files' });
}

async function checkpointsOf(service: ServiceUnderTest, ideaId: string): Promise<CheckpointView[]> {
  const response = await service.api(`/api/ideas/${ideaId}/checkpoints`);
  expect(response.status).toBe(200);
  return CheckpointListResponseSchema.parse(await response.json()).checkpoints;
}

async function errorOf(response: Response) {
  return { status: response.status, ...ApiErrorBodySchema.parse(await response.json()).error };
}

/** The checkpoint a build ended with (the first build also has one from before it). */
function checkpointOf(events: readonly RelayEvent[]) {
  return events.find(
    (event): event is Extract<RelayEvent, { type: 'checkpoint:created' }> =>
      event.type === 'checkpoint:created' && event.kind === 'build',
  );
}

/** The texts of the newest user message of a model request: what the person's latest message became. */
function lastUserText(request: RecordedRequest | undefined): string {
  const last = request?.body.messages.filter((message) => message.role === 'user').at(-1);
  if (last === undefined) return '';
  if (typeof last.content === 'string') return last.content;
  return last.content.flatMap((block) => (block.text === undefined ? [] : [block.text])).join('\n');
}

/** What git on the host holds, read as its owner would (the test runs as another user). */
function gitLog(projectDir: string): string[] {
  return execFileSync('git', ['-c', `safe.directory=${projectDir}`, 'log', '--format=%an <%ae>|%s'], {
    cwd: projectDir,
    encoding: 'utf8',
  })
    .trim()
    .split('\n');
}

describe('checkpoints', () => {
  it('commits every build, diffs it, and restores to before a build as a new commit', async () => {
    const { service } = fixture;
    const idea = await service.createIdea('Checkpointed');
    const project = service.projectDir(idea.id);
    const client = await service.connect();
    await client.subscribe(idea.id);

    fixture.model.enqueue(
      // Installed dependencies are no part of a checkpoint, .gitignore or not.
      bash(
        "printf 'one\\ntwo\\n' > a.txt && printf 'hello\\n' > b.txt && " +
          "mkdir -p node_modules/dep lib/.venv && echo 'x' > node_modules/dep/index.js && echo 'y' > lib/.venv/z",
      ),
      text('Wrote two files.'),
    );
    const first = await client.run(idea.id, 'build', 'Write two files\nwith some detail');
    const created = checkpointOf(first);
    expect(created).toMatchObject({
      kind: 'build',
      filesChanged: 2,
      insertions: 3,
      deletions: 0,
      files: [
        { path: 'a.txt', status: 'added', insertions: 2, deletions: 0 },
        { path: 'b.txt', status: 'added', insertions: 1, deletions: 0 },
      ],
    });
    // The checkpoint comes before the run's end, so a client that sees the end has it.
    const types = first.map((event) => event.type);
    expect(types.indexOf('checkpoint:created')).toBeLessThan(types.indexOf('run:ended'));

    fixture.model.enqueue(bash("printf 'one\\nTWO\\nthree\\n' > a.txt"), text('Edited a.'));
    const second = checkpointOf(await client.run(idea.id, 'build', 'Edit a'));
    expect(second).toMatchObject({
      kind: 'build',
      parent: created?.commit,
      filesChanged: 1,
      insertions: 2,
      deletions: 1,
      files: [{ path: 'a.txt', status: 'modified' }],
    });

    // A chat changes nothing: no checkpoint.
    fixture.model.enqueue(text('Just talking.'));
    expect(checkpointOf(await client.run(idea.id, 'chat', 'How is it going?'))).toBeUndefined();

    const listed = await checkpointsOf(service, idea.id);
    // Newest first: the second build and the first. The empty folder before the first build is committed (the first
    // build can be undone) but is no change to list (issue 40).
    expect(listed.map((checkpoint) => checkpoint.kind)).toEqual(['build', 'build']);
    const [secondView, firstView] = listed;
    expect(firstView?.commit).toBe(created?.commit);
    const before = first.find(
      (event) => event.type === 'checkpoint:created' && event.kind === 'before_build',
    );
    expect(before).toMatchObject({ parent: null, filesChanged: 0 });
    expect(firstView?.parent).toBe(before?.type === 'checkpoint:created' ? before.commit : 'none');
    const beforeDiff = await service.api(
      `/api/ideas/${idea.id}/checkpoints/${String(firstView?.parent)}/diff`,
    );
    expect(beforeDiff.status).toBe(200);
    expect(secondView?.runId).toBe(second?.runId);

    const diffResponse = await service.api(
      `/api/ideas/${idea.id}/checkpoints/${String(second?.commit)}/diff`,
    );
    const diff = CheckpointDiffResponseSchema.parse(await diffResponse.json());
    expect(diff.truncated).toBe(false);
    expect(diff.diff).toContain('--- a/a.txt\n+++ b/a.txt\n');
    expect(diff.diff).toContain('-two\n+TWO\n+three\n');

    // Restore to before the second build: the files are the first checkpoint's, byte for byte.
    const restoreResponse = await service.api(
      `/api/ideas/${idea.id}/checkpoints/${String(created?.commit)}/restore`,
      { method: 'POST' },
    );
    expect(restoreResponse.status).toBe(200);
    const restored = CheckpointRestoreResponseSchema.parse(await restoreResponse.json()).checkpoint;
    expect(restored).toMatchObject({ kind: 'restore', restoredTo: created?.commit, parent: second?.commit });
    expect(await readFile(join(project, 'a.txt'), 'utf8')).toBe('one\ntwo\n');
    expect(await readFile(join(project, 'b.txt'), 'utf8')).toBe('hello\n');
    expect(await readFile(join(project, 'node_modules/dep/index.js'), 'utf8')).toBe('x\n');
    await client.waitFor((frame) => frame.type === 'checkpoint:restored');
    const log = gitLog(project);
    expect(log).toHaveLength(4);
    expect(log[0]).toMatch(/^Catalyst <catalyst@localhost>\|Restore to [0-9a-f]{12}/);
    expect(log[2]).toBe('Catalyst <catalyst@localhost>|Build: Write two files');

    // Claude is told, once, in the next message.
    const requestsBefore = fixture.model.requests.length;
    fixture.model.enqueue(text('Noted.'));
    await client.run(idea.id, 'chat', 'What now?');
    const told = lastUserText(fixture.model.requests[requestsBefore]);
    expect(told).toContain(`restored the project's files to the state before run ${String(second?.runId)}`);
    expect(told).toMatch(/What now\?$/);
    const requestsAfter = fixture.model.requests.length;
    fixture.model.enqueue(text('Still here.'));
    await client.run(idea.id, 'chat', 'And again?');
    expect(lastUserText(fixture.model.requests[requestsAfter])).not.toContain('restored the project');
    client.close();
  });

  it('checkpoints a cancelled build, and commits on top of a repository Claude made, hook and all', async () => {
    const { service } = fixture;
    const idea = await service.createIdea('Own repository');
    const project = service.projectDir(idea.id);
    const client = await service.connect();
    await client.subscribe(idea.id);

    // Claude's own repository, with a pre-commit hook that always fails, and a commit of its own.
    const hook = '#!/bin/sh\necho refused >&2\nexit 1\n';
    fixture.model.enqueue(
      bash(
        'git init -q && git config user.name Claude && git config user.email claude@example.com && ' +
          `printf '${hook.replace(/\n/g, '\\n')}' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit && ` +
          "printf 'mine\\n' > mine.txt && git add -A && git commit -q --no-verify -m 'Claude commit' && " +
          "printf 'more\\n' > more.txt",
      ),
      text('Made my repo.'),
    );
    const built = checkpointOf(await client.run(idea.id, 'build', 'Make a repo'));
    expect(built).toMatchObject({ kind: 'build', filesChanged: 2 });
    expect(built?.files.map((file) => file.path).sort()).toEqual(['mine.txt', 'more.txt']);
    expect(await readFile(join(project, '.git/hooks/pre-commit'), 'utf8')).toBe(hook);
    const log = gitLog(project);
    expect(log[0]).toMatch(/^Catalyst <catalyst@localhost>\|Build: Make a repo/);
    expect(log[1]).toBe('Claude <claude@example.com>|Claude commit');

    // A build cancelled midway still ends with a checkpoint of what it wrote.
    fixture.model.enqueue(
      // A git killed mid-write leaves its index.lock: the checkpoint goes on all the same.
      bash(`printf 'half\\n' > half.txt; touch .git/index.lock; ${waitForFile(join(project, 'never'))}`),
    );
    const from = client.frames.length;
    client.send({ type: 'build', ideaId: idea.id, message: 'Build slowly' });
    const started = await client.waitFor((frame) => frame.type === 'run:started', from);
    await client.waitFor((frame) => frame.type === 'claude:tool_use', from);
    await waitUntil(
      () =>
        readFile(join(project, 'half.txt')).then(
          () => true,
          () => false,
        ),
      {
        timeoutMs: 30_000,
        what: 'the build wrote half.txt',
      },
    );
    client.send({ type: 'cancel', ideaId: idea.id });
    const events = await client.untilEnded(started);
    expect(events.find((event) => event.type === 'run:ended')).toMatchObject({ outcome: 'cancelled' });
    expect(checkpointOf(events)).toMatchObject({
      kind: 'build',
      parent: built?.commit,
      files: [{ path: 'half.txt', status: 'added' }],
    });
    client.close();
  });

  it("keeps a file added by hand out of the next build's change, and restoring to before that build keeps it (issue 25)", async () => {
    const { service } = fixture;
    const idea = await service.createIdea('Hand edits');
    const project = service.projectDir(idea.id);
    const client = await service.connect();
    await client.subscribe(idea.id);

    fixture.model.enqueue(bash("printf 'one\\n' > a.txt"), text('Wrote a.'));
    const first = checkpointOf(await client.run(idea.id, 'build', 'Write a'));
    expect(first).toMatchObject({ filesChanged: 1 });

    // The person's own change between two builds (a terminal, an editor): not Claude's work.
    await writeFile(join(project, 'hand.txt'), 'mine\n');
    await writeFile(join(project, 'a.txt'), 'one\nby hand\n');
    // The person's words go to git on stdin, whatever they hold (issue 25, finding 9).
    const words = `-n "it's" $HOME \`id\` \\ 100% ünïcödé ✓`;
    fixture.model.enqueue(bash("printf 'two\\n' > b.txt"), text('Wrote b.'));
    const events = await client.run(idea.id, 'build', `${words}\nand more`);
    const second = checkpointOf(events);
    const before = events.find(
      (event): event is Extract<RelayEvent, { type: 'checkpoint:created' }> =>
        event.type === 'checkpoint:created' && event.kind === 'before_build',
    );
    expect(second).toMatchObject({
      filesChanged: 1,
      insertions: 1,
      deletions: 0,
      files: [{ path: 'b.txt', status: 'added' }],
    });
    expect(before).toMatchObject({
      parent: first?.commit,
      filesChanged: 2,
      files: [
        { path: 'a.txt', status: 'modified' },
        { path: 'hand.txt', status: 'added' },
      ],
    });
    expect(second?.parent).toBe(before?.commit);
    const types = events.map((event) => event.type);
    expect(types.indexOf('checkpoint:created')).toBeLessThan(types.indexOf('run:started'));
    const diff = CheckpointDiffResponseSchema.parse(
      await (await service.api(`/api/ideas/${idea.id}/checkpoints/${String(second?.commit)}/diff`)).json(),
    );
    expect(diff.diff).toContain('+++ b/b.txt');
    expect(diff.diff).not.toContain('hand.txt');
    expect(diff.diff).not.toContain('by hand');
    expect(gitLog(project).slice(0, 2)).toEqual([
      `Catalyst <catalyst@localhost>|Build: ${words}`,
      `Catalyst <catalyst@localhost>|Before build: ${words}`,
    ]);
    const body = execFileSync('git', ['-c', `safe.directory=${project}`, 'log', '-1', '--format=%B'], {
      cwd: project,
      encoding: 'utf8',
    });
    expect(body).toBe(`Build: ${words}\n\nCatalyst-Run: ${String(second?.runId)}\n\n`);

    // "Restore to before this build": to the build's parent, which holds the person's changes.
    const restoreResponse = await service.api(
      `/api/ideas/${idea.id}/checkpoints/${String(second?.parent)}/restore`,
      { method: 'POST' },
    );
    expect(restoreResponse.status).toBe(200);
    expect(await readFile(join(project, 'hand.txt'), 'utf8')).toBe('mine\n');
    expect(await readFile(join(project, 'a.txt'), 'utf8')).toBe('one\nby hand\n');
    await expect(readFile(join(project, 'b.txt'))).rejects.toMatchObject({ code: 'ENOENT' });

    // Nothing changed outside a build since: no checkpoint before the next one.
    fixture.model.enqueue(bash("printf 'three\\n' > c.txt"), text('Wrote c.'));
    const third = await client.run(idea.id, 'build', 'Write c');
    expect(third.flatMap((event) => (event.type === 'checkpoint:created' ? [event.kind] : []))).toEqual([
      'build',
    ]);
    client.close();
  });

  it('refuses a malformed commit, one that is not a checkpoint, and a restore during a run', async () => {
    const { service } = fixture;
    const idea = await service.createIdea('Refusals');
    const malformed = await service.api(`/api/ideas/${idea.id}/checkpoints/HEAD/diff`);
    expect(await errorOf(malformed)).toMatchObject({ status: 400, code: 'INVALID_ARGUMENT' });
    const unknown = await service.api(`/api/ideas/${idea.id}/checkpoints/${'a'.repeat(40)}/restore`, {
      method: 'POST',
    });
    expect(await errorOf(unknown)).toMatchObject({ status: 404, code: 'CHECKPOINT_NOT_FOUND' });

    const client = await service.connect();
    await client.subscribe(idea.id);
    const project = service.projectDir(idea.id);
    fixture.model.enqueue(bash(waitForFile(join(project, 'go'))), text('Done.'));
    const from = client.frames.length;
    client.send({ type: 'build', ideaId: idea.id, message: 'Wait' });
    const started = await client.waitFor((frame) => frame.type === 'run:started', from);
    await client.waitFor((frame) => frame.type === 'claude:tool_use', from);
    const before = client.events().find((event) => event.type === 'checkpoint:created');
    expect(before).toMatchObject({ kind: 'before_build' });
    expect(await checkpointsOf(service, idea.id)).toEqual([]);
    const during = await service.api(`/api/ideas/${idea.id}/checkpoints/${String(before?.commit)}/restore`, {
      method: 'POST',
    });
    expect(await errorOf(during)).toMatchObject({ status: 409, code: 'RUN_IN_PROGRESS' });
    await writeFile(join(project, 'go'), '');
    await client.untilEnded(started);
    client.close();
  });
});

describe('files', () => {
  it('lists and reads project files with hostile names, and refuses every path that leaves project/', async () => {
    const { service } = fixture;
    const idea = await service.createIdea('Files');
    const client = await service.connect();
    await client.subscribe(idea.id);
    fixture.model.enqueue(
      bash(
        "mkdir -p src && printf 'code\\n' > src/main.ts && printf 'q\\n' > \"q'uote\" && " +
          "printf 'dash\\n' > ./-rf && printf 'nl\\n' > \"$(printf 'new\\nline')\" && " +
          "printf 'sub\\n' > '$(touch pwned)' && head -c 5000000 /dev/zero | tr '\\0' a > big.txt && " +
          "printf 'bin\\000ary' > bin.dat && ln -s /etc etc-link && ln -s /etc/hostname host-link && " +
          'ln -s src/main.ts inside-link',
      ),
      text('Made files.'),
    );
    const built = checkpointOf(await client.run(idea.id, 'build', 'Make files'));
    expect(built?.filesChanged).toBe(10);
    client.close();

    const list = async (path: string) =>
      service.api(`/api/ideas/${idea.id}/files?path=${encodeURIComponent(path)}`);
    const content = async (path: string, at?: string) =>
      service.api(
        `/api/ideas/${idea.id}/files/content?path=${encodeURIComponent(path)}${at === undefined ? '' : `&at=${at}`}`,
      );

    const root = FileListResponseSchema.parse(await (await list('')).json());
    expect(root.path).toBe('');
    expect(root.entries[0]).toMatchObject({ name: 'src', type: 'directory' });
    expect(root.entries.map((entry) => entry.name)).not.toContain('.git');
    expect(root.entries.map((entry) => entry.name).sort()).toEqual(
      [
        '$(touch pwned)',
        '-rf',
        'big.txt',
        'bin.dat',
        'etc-link',
        'host-link',
        'inside-link',
        'new\nline',
        "q'uote",
        'src',
      ].sort(),
    );
    expect(root.entries.find((entry) => entry.name === 'etc-link')?.type).toBe('other');

    const read = async (path: string, at?: string) => {
      const response = await content(path, at);
      expect(response.status).toBe(200);
      return FileContentResponseSchema.parse(await response.json());
    };
    expect(await read('src/main.ts')).toEqual({ path: 'src/main.ts', size: 5, text: 'code\n' });
    expect(await read("q'uote")).toMatchObject({ text: 'q\n' });
    expect(await read('-rf')).toMatchObject({ text: 'dash\n' });
    expect(await read('new\nline')).toMatchObject({ text: 'nl\n' });
    expect(await read('$(touch pwned)')).toMatchObject({ text: 'sub\n' });
    expect(await read('./src//main.ts')).toMatchObject({ path: 'src/main.ts' });
    expect(await read('inside-link')).toMatchObject({ text: 'code\n' });
    expect(await read('big.txt')).toEqual({ path: 'big.txt', size: 5_000_000, tooLarge: true });
    expect(await read('bin.dat')).toEqual({ path: 'bin.dat', size: 7, binary: true });
    // At a checkpoint, read from git: the same names, the same answers.
    const at = built?.commit;
    expect(await read("q'uote", at)).toMatchObject({ text: 'q\n' });
    expect(await read('new\nline', at)).toMatchObject({ text: 'nl\n' });
    expect(await read('-rf', at)).toMatchObject({ text: 'dash\n' });
    expect(await read('big.txt', at)).toEqual({ path: 'big.txt', size: 5_000_000, tooLarge: true });

    for (const path of [
      '..',
      '../meta.json',
      '/etc/hostname',
      'src/../../meta.json',
      'etc-link',
      'etc-link/hostname',
      '.git',
      '.git/config',
    ]) {
      expect(await errorOf(await list(path)), path).toMatchObject({ status: 400, code: 'INVALID_PATH' });
    }
    for (const path of ['host-link', '../meta.json', '/etc/hostname', 'etc-link/hostname', '.git/HEAD']) {
      expect(await errorOf(await content(path)), path).toMatchObject({ status: 400, code: 'INVALID_PATH' });
    }
    expect(await errorOf(await content('missing.txt'))).toMatchObject({
      status: 404,
      code: 'PATH_NOT_FOUND',
    });
    expect(await errorOf(await content('src'))).toMatchObject({ status: 400, code: 'INVALID_PATH' });
    expect(await errorOf(await content('missing.txt', at))).toMatchObject({
      status: 404,
      code: 'PATH_NOT_FOUND',
    });
    // Nothing ran: no file named by the $(…) appeared.
    const after = FileListResponseSchema.parse(await (await list('')).json());
    expect(after.entries.map((entry) => entry.name)).not.toContain('pwned');

    const history = await service.api(`/api/ideas/${idea.id}/files/history?path=src/main.ts`);
    const { checkpoints } = (await history.json()) as { checkpoints: CheckpointView[] };
    expect(checkpoints.map((checkpoint) => checkpoint.commit)).toEqual([built?.commit]);
  });
});
