import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { API, type RelayEvent } from '@catalyst/protocol';
import { collectTexts, text, toolUse, waitUntil, type RecordedRequest } from '@catalyst/testkit';
import { describe, expect, it } from 'vitest';
import { DEFAULT_QA_MODEL } from '../src/runs/core/auto-answer.ts';
import { makeFifo, releaseFifo } from './fifo-test-kit.ts';
import { useServiceFixture, type IdeaClient } from './service-harness.ts';
import { askAside, listAsides } from './aside-client.ts';

// Question asides (issue 30) end to end: the real CLI forks the idea's session on the test kit's VM while a build
// waits in a Bash step the test holds (`cat` of a FIFO), and the scripted model answers the fork in between. When
// an aside is refused, and a delete that stops them, are proven on the in-process host: fast/asides.test.ts.

const fixture = useServiceFixture();

/** The idea's Claude session file on the VM (under the test user's ~/.claude/projects), and its folder's files. */
async function sessionFiles(sessionId: string): Promise<{ path: string; siblings: string[] }> {
  const projects = join(fixture.sshd.users.bash.home, '.claude', 'projects');
  for (const dir of await readdir(projects)) {
    const names = await readdir(join(projects, dir));
    if (names.includes(`${sessionId}.jsonl`))
      return { path: join(projects, dir, `${sessionId}.jsonl`), siblings: names.sort() };
  }
  throw new Error(`no session file for ${sessionId}`);
}

function eventOf<T extends RelayEvent['type']>(
  client: IdeaClient,
  type: T,
): Promise<Extract<RelayEvent, { type: T }>> {
  return client.waitFor((frame) => frame.type === type) as Promise<Extract<RelayEvent, { type: T }>>;
}

function requestTools(request: RecordedRequest): string[] {
  return (request.body.tools ?? []).map((tool) => String((tool as { name?: unknown }).name)).sort();
}

describe('question asides', () => {
  it('answers from the conversation while a build waits in a Bash step, and leaves the build and its session as they were', async () => {
    const { service, model } = fixture;
    const idea = await service.createIdea('Aside during a build');
    const client = await service.connect();
    await client.subscribe(idea.id);
    model.enqueue(text('We keep the notes in SQLite: one file, no server.'));
    await client.run(idea.id, 'build', 'Start a notes app on SQLite.');
    const { idea: before } = API.getIdea.response.parse(
      await (await service.api(`/api/ideas/${idea.id}`)).json(),
    );
    const sessionId = before.meta?.sessionId ?? '';

    const gateDir = await mkdtemp(join(tmpdir(), 'catalyst-aside-'));
    await chmod(gateDir, 0o755);
    const gate = join(gateDir, 'gate');
    makeFifo(gate);
    try {
      const base = model.requests.length;
      model.enqueue(toolUse('Bash', { command: `cat ${gate}`, description: 'Wait for the gate' }));
      const from = client.frames.length;
      client.send({ type: 'build', ideaId: idea.id, message: 'Add tagging to the notes.' });
      const started = await client.waitFor((f) => f.type === 'run:started' && f.ideaId === idea.id, from);
      await client.waitFor((f) => f.type === 'claude:tool_use' && f.name === 'Bash', from);
      await waitUntil(
        async () => (await fixture.runProcesses(idea.id)).some((p) => p.cmdline === `cat ${gate}`),
        {
          timeoutMs: 15_000,
          what: 'the build’s Bash step to wait on the gate',
        },
      );
      const session = await sessionFiles(sessionId);
      // The CLI writes its transcript behind what it prints: the snapshot is taken once the build's Bash call is in
      // it and the file has stopped growing (nothing more is written while the tool waits on the gate).
      let lastSize = -1;
      await waitUntil(
        async () => {
          const now = await readFile(session.path, 'utf8');
          const isSettled = now.includes('Wait for the gate') && now.length === lastSize;
          lastSize = now.length;
          return isSettled;
        },
        { timeoutMs: 15_000, intervalMs: 250, what: 'the build’s session file to hold its Bash call' },
      );
      const whileWaiting = await readFile(session.path);

      model.enqueue(text('SQLite: a single file and no server to run, as said at the start.'));
      const asked = await askAside(fixture.service, idea.id, {
        question: 'Why SQLite rather than Postgres?',
      });
      expect(asked.status).toBe(202);
      const { aside } = API.askAside.response.parse(await asked.json());
      expect(aside).toMatchObject({ state: 'asking', model: DEFAULT_QA_MODEL });
      const answered = await eventOf(client, 'aside:answered');
      expect(answered).toMatchObject({
        asideId: aside.id,
        text: 'SQLite: a single file and no server to run, as said at the start.',
      });
      expect(answered.runId).toBeUndefined();

      // The fork was sent the conversation so far and the question, on the small model, with read tools only.
      const forked = await model.waitForRequest(base + 1);
      const sent = collectTexts(forked).join('\n');
      expect(sent).toContain('Start a notes app on SQLite.');
      expect(sent).toContain('We keep the notes in SQLite: one file, no server.');
      expect(sent).toContain('Add tagging to the notes.');
      expect(sent).toContain('Why SQLite rather than Postgres?');
      expect(forked.body.model).toBe(DEFAULT_QA_MODEL);
      expect(requestTools(forked)).toEqual(['Glob', 'Grep', 'Read']);
      // --fork-session: the fork goes on under a session id of its own, the build under the idea's.
      const sessionHeader = 'x-claude-code-session-id';
      expect((await model.waitForRequest(base)).headers[sessionHeader]).toBe(sessionId);
      expect(forked.headers[sessionHeader]).not.toBe(sessionId);

      // Its process is gone; the build's session is byte for byte what it was, and no session file was added.
      await waitUntil(
        async () => !(await fixture.runProcesses(idea.id)).some((p) => p.cmdline.includes('--fork-session')),
        { timeoutMs: 15_000, what: 'the aside’s claude to end' },
      );
      expect(await readFile(session.path)).toEqual(whileWaiting);
      expect((await sessionFiles(sessionId)).siblings).toEqual(session.siblings);

      model.enqueue(text('Tagging is in.'));
      await writeFile(gate, 'open\n');
      const events = await client.untilEnded(started);
      expect(events.at(-1)).toMatchObject({ type: 'run:ended', outcome: 'completed' });
      const texts = events.flatMap((e) => (e.type === 'claude:text' ? [e.text] : []));
      expect(texts).toEqual(['Tagging is in.']);
      expect(events.some((e) => e.type.startsWith('aside:'))).toBe(false);
      // The build's next request knows nothing of the aside; its session only grew by the build's own lines.
      const buildNext = collectTexts(await model.waitForRequest(base + 2)).join('\n');
      expect(buildNext).not.toContain('Why SQLite rather than Postgres?');
      const after = await readFile(session.path);
      expect(after.subarray(0, whileWaiting.length)).toEqual(whileWaiting);
      expect(after.toString('utf8')).not.toContain('Why SQLite rather than Postgres?');
      expect(after.toString('utf8')).not.toContain('as said at the start');

      // Counted in the idea's totals; listed from the history, after a reload too.
      const { idea: now } = API.getIdea.response.parse(
        await (await service.api(`/api/ideas/${idea.id}`)).json(),
      );
      expect(now.meta?.totals.auxiliaryCostUsd).toBeCloseTo(answered.costUsd, 10);
      expect(await listAsides(fixture.service, idea.id)).toEqual([
        expect.objectContaining({ id: aside.id, state: 'answered', answer: answered.text }),
      ]);
    } finally {
      await releaseFifo(gate);
      await rm(gateDir, { recursive: true, force: true });
      client.close();
    }
  });
});
