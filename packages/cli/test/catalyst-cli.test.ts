import { symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import {
  IDEA_ID_PATTERN,
  IdeaListResponseSchema,
  QueueResponseSchema,
  RunListResponseSchema,
  RunResponseSchema,
  RunViewSchema,
} from '@catalyst/protocol';
import {
  colorQuestion,
  httpError,
  startTcpProxy,
  streamedText,
  text,
  toolUse,
  waitForFile,
  waitUntil,
} from '@catalyst/testkit';
import { describe, expect, it, onTestFinished } from 'vitest';
import { useFastService } from '../../backend/test/fast/fast-harness.ts';
import { expectNothingLeft } from '../../backend/test/fast/fast-kit.ts';
import { CLI_BIN, runCli, startCli, useCliFiles, type CliOptions } from './cli-process.ts';

// The `catalyst` command end to end: the real bin in a process of its own, against a whole Catalyst on the
// in-process host (its claude scripted: the command sees only the REST and WebSocket API, whose runs with the real
// CLI over sshd the backend's end-to-end tier proves).

const fixture = useFastService();
const files = useCliFiles('catalyst-cli', () => fixture.service.catalyst.token);

/** The command line with where Catalyst is and its token file, as a person would pass them. */
function argsFor(...args: string[]): string[] {
  return ['--url', fixture.service.catalyst.url, '--token-file', files.tokenFile, ...args];
}

function run(args: string[], options?: CliOptions) {
  return runCli(argsFor(...args), options);
}

/** A loopback port nothing listens on: one the system just gave out and took back. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** The idea's runs, newest first, as the API lists them. */
async function runsOf(ideaId: string) {
  return RunListResponseSchema.parse(await (await fixture.service.api(`/api/ideas/${ideaId}/runs`)).json())
    .runs;
}

/** Waits for the idea's newest run to have completed on the server. */
async function untilCompleted(ideaId: string): Promise<void> {
  await waitUntil(async () => (await runsOf(ideaId))[0]?.state === 'completed', {
    timeoutMs: 20_000,
    what: 'the run to end on the server',
  });
}

/** A Bash step that waits until `go` exists in the project (nobody writes it here: the run is cancelled). */
function waitForGo(projectDir: string) {
  return toolUse('Bash', {
    command: `${waitForFile(join(projectDir, 'go'))}; echo went`,
    description: 'Wait for go',
  });
}

describe('catalyst ideas and new', () => {
  it('creates an idea and prints its id; lists it as a table and as JSON, also through a symlink from elsewhere', async () => {
    const created = await run(['new', 'Listed from the CLI', '--description', 'Made by catalyst new']);
    expect(created).toMatchObject({ code: 0, stderr: '' });
    const id = created.stdout.trim();
    expect(id).toMatch(IDEA_ID_PATTERN);

    const table = await run(['ideas']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^ID\s+STATUS\s+TITLE$/m);
    expect(table.stdout).toMatch(new RegExp(`^${id}\\s+captured\\s+Listed from the CLI$`, 'm'));

    // A link on PATH, called from another directory, with the settings from the environment instead of flags.
    const link = join(files.dir, 'catalyst');
    await symlink(CLI_BIN, link);
    const env = { CATALYST_URL: fixture.service.catalyst.url, CATALYST_TOKEN_FILE: files.tokenFile };
    const json = await runCli(['ideas', '--json'], { bin: link, cwd: files.dir, env });
    expect(json.code).toBe(0);
    const listed = IdeaListResponseSchema.parse(JSON.parse(json.stdout)).ideas.find((idea) => idea.id === id);
    expect(listed?.meta).toMatchObject({ title: 'Listed from the CLI', description: 'Made by catalyst new' });
  });
});

describe('catalyst chat and build', () => {
  it('streams Claude’s text and tool calls as they come, ends with the outcome line, and exits 0', async () => {
    const idea = await fixture.service.createIdea('Streamed build');
    fixture.model.enqueue(
      toolUse('Bash', { command: 'echo built-by-cli', description: 'Say it' }, 'Building now.'),
      streamedText('All ', 'done ', 'here.'),
    );
    // The idea by its title.
    const exit = await run(['build', 'Streamed build', 'Build it.']);
    expect(exit.code, exit.stderr).toBe(0);
    // The tool result's first line (the test user's shell prints rc noise before the command's own output).
    expect(exit.stdout).toMatch(/^Building now\.\n→ Bash echo built-by-cli\n {2}✓ .+\nAll done here\.\n$/);
    expect(exit.stderr).toMatch(/^completed · 2 turns · [\d.]+ m?s · \$\d+\.\d{4}\n$/);
    const runs = await runsOf(idea.id);
    expect(runs.map((one) => [one.mode, one.message, one.state])).toEqual([
      ['build', 'Build it.', 'completed'],
    ]);
  });

  it('follows a build through a dropped connection: back again, it shows the rest once and exits 0', async () => {
    const { service } = fixture;
    const idea = await service.createIdea('Followed through a drop');
    fixture.model.enqueue(waitForGo(service.projectDir(idea.id)), text('Done after the drop.'));
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: service.catalyst.port });
    onTestFinished(() => proxy.close());
    const building = startCli([
      '--url',
      proxy.url,
      '--token-file',
      files.tokenFile,
      'build',
      idea.id,
      'Wait.',
    ]);
    await building.printed('→ Bash', 'stdout');
    // The run ends while the command cannot reach Catalyst: its end comes only with the replay.
    proxy.hold();
    expect(proxy.dropConnections(), 'the command had a connection to drop').toBeGreaterThan(0);
    await writeFile(join(service.projectDir(idea.id), 'go'), '');
    await untilCompleted(idea.id);
    proxy.release();
    const exit = await building.exited;
    expect(exit.code, exit.stderr).toBe(0);
    expect(exit.stdout.match(/Done after the drop\./g)).toEqual(['Done after the drop.']);
    expect(exit.stdout.match(/→ Bash/g)).toHaveLength(1);
    expect(exit.stderr).toMatch(/^completed · 2 turns/m);
  });

  it('exits 1 for a failed run, saying why', async () => {
    const idea = await fixture.service.createIdea('Failing chat');
    fixture.model.enqueue(httpError(400, 'Scripted refusal'));
    const exit = await run(['chat', idea.id, 'Fail, please.']);
    expect(exit.code, exit.stdout + exit.stderr).toBe(1);
    expect(exit.stderr).toMatch(/^failed: API Error: 400 .* · 1 turn · /m);
  });

  it('shows a question without a terminal, waits for the web app’s answer, and goes on', async () => {
    const idea = await fixture.service.createIdea('Asked on the way');
    fixture.model.enqueue(toolUse('AskUserQuestion', { questions: [colorQuestion] }), text('Blue it is.'));
    const client = await fixture.service.connect();
    await client.subscribe(idea.id);
    const building = startCli(argsFor('build', idea.id, 'Ask me first.'));
    await building.printed('Waiting for an answer in the web app', 'stderr');
    const question = await client.waitFor((frame) => frame.type === 'claude:question');
    if (question.type !== 'claude:question') throw new Error(`not a question: ${question.type}`);
    const answers = { [colorQuestion.question]: 'Blue' };
    client.send({ type: 'answer', ideaId: idea.id, questionId: question.questionId, answers });
    const exit = await building.exited;
    client.close();
    expect(exit.code, exit.stderr).toBe(0);
    expect(exit.stdout).toContain(
      '? Color: Which color do you prefer?\n    1) Red – Warm color\n    2) Blue – Cool color\n',
    );
    expect(exit.stdout).toContain('  ↳ answered by person: Blue\n');
    expect(exit.stdout).toMatch(/Blue it is\.\n$/);
  });

  it('Ctrl-C cancels the run on the server, waits for it to end, and exits 130', async () => {
    const { service } = fixture;
    const idea = await service.createIdea('Interrupted build');
    fixture.model.enqueue(waitForGo(service.projectDir(idea.id)));
    const building = startCli(argsFor('build', idea.id, 'Wait for go.'));
    await building.printed('→ Bash', 'stdout');
    building.child.kill('SIGINT');
    const exit = await building.exited;
    expect(exit.code, exit.stderr).toBe(130);
    expect(exit.stderr).toContain('Cancelling the run…');
    expect(exit.stderr).toMatch(/^cancelled/m);
    const runs = await runsOf(idea.id);
    expect(runs.map((one) => one.state)).toEqual(['cancelled']);
    await expectNothingLeft(fixture, idea.id);
  });

  it('SIGTERM cancels the run on the server as Ctrl-C does', async () => {
    const { service } = fixture;
    const idea = await service.createIdea('Terminated build');
    fixture.model.enqueue(waitForGo(service.projectDir(idea.id)));
    const building = startCli(argsFor('build', idea.id, 'Wait for go.'));
    await building.printed('→ Bash', 'stdout');
    building.child.kill('SIGTERM');
    const exit = await building.exited;
    expect(exit.code, exit.stderr).toBe(130);
    expect(exit.stderr).toContain('Cancelling the run…');
    const [ran] = await runsOf(idea.id);
    const { run: view } = RunResponseSchema.parse(
      await (await service.api(`/api/runs/${ran?.id ?? ''}`)).json(),
    );
    expect(view.state).toBe('cancelled');
    await expectNothingLeft(fixture, idea.id);
  });

  it('with --detach, SIGTERM leaves the run going on the server and says so', async () => {
    const { service } = fixture;
    const idea = await service.createIdea('Detached build');
    const projectDir = service.projectDir(idea.id);
    fixture.model.enqueue(waitForGo(projectDir), text('Went on without the command.'));
    const building = startCli(argsFor('build', idea.id, 'Wait for go.', '--detach'));
    await building.printed('→ Bash', 'stdout');
    building.child.kill('SIGTERM');
    const exit = await building.exited;
    expect(exit.code, exit.stderr).toBe(130);
    const [ran] = await runsOf(idea.id);
    const runId = ran?.id ?? '';
    expect(exit.stderr).toContain(`Left the run ${runId} going on Catalyst (--detach)`);
    expect(exit.stderr).not.toContain('Cancelling');
    const viewNow = RunResponseSchema.parse(await (await service.api(`/api/runs/${runId}`)).json());
    expect(viewNow.run.state).toBe('running');
    // It goes on to its end, with nobody following it from here.
    await writeFile(join(projectDir, 'go'), '');
    const ended = await service.api(`/api/runs/${runId}?waitMs=30000`);
    expect(RunResponseSchema.parse(await ended.json()).run.state).toBe('completed');
  });
});

describe('catalyst queue', () => {
  it('queues a message while a build runs, lists it with its id, and it is sent once the build ends', async () => {
    const { service } = fixture;
    const idea = await service.createIdea('Queued from the command line');
    const projectDir = service.projectDir(idea.id);
    fixture.model.enqueue(waitForGo(projectDir), text('Built.'), text('Queued, then answered.'));
    const started = await service.api(`/api/ideas/${idea.id}/runs`, {
      method: 'POST',
      body: JSON.stringify({ mode: 'build', message: 'Wait for go.' }),
    });
    expect(started.status).toBe(202);
    const queued = await run(['queue', 'Queued from the command line', 'chat:"What did you build?"']);
    expect(queued.code, queued.stderr).toBe(0);
    expect(queued.stdout).toMatch(/^Queue running · 1 waiting · \$0\.00\d* spent · ap-/);
    expect(queued.stdout).toMatch(/^ {4}1 {2}chat: What did you build\? \(q-[0-9a-f]{8}\)$/m);
    const listed = await run(['queue', idea.id, '--json']);
    const { queue } = QueueResponseSchema.parse(JSON.parse(listed.stdout));
    expect(queue?.steps.map((step) => [step.message, step.state])).toEqual([
      ['What did you build?', 'pending'],
    ]);
    const misused = await run(['queue', idea.id, '--now']);
    expect(misused.code).toBe(2);

    await writeFile(join(projectDir, 'go'), '');
    await waitUntil(
      async () =>
        QueueResponseSchema.parse(await (await service.api(`/api/ideas/${idea.id}/queue`)).json()).queue ===
        null,
      { timeoutMs: 30_000, what: 'the queue to be sent' },
    );
    const runs = await runsOf(idea.id);
    expect(runs.map((one) => [one.message, one.state])).toEqual([
      ['What did you build?', 'completed'],
      ['Wait for go.', 'completed'],
    ]);
    const empty = await run(['queue', idea.id]);
    expect(empty.stdout).toBe('Nothing is queued.\n');
  });
});

describe('catalyst run and autopilot', () => {
  it('run --json waits with the long poll and prints the ended run', async () => {
    const idea = await fixture.service.createIdea('Run without streaming');
    fixture.model.enqueue(text('Ran quietly.'));
    const exit = await run(['run', idea.id, '--chat', 'Anything new?', '--json']);
    expect(exit.code, exit.stderr).toBe(0);
    const ended = RunViewSchema.parse(JSON.parse(exit.stdout));
    expect(ended).toMatchObject({
      ideaId: idea.id,
      mode: 'chat',
      message: 'Anything new?',
      state: 'completed',
      result: { success: true, result: 'Ran quietly.' },
    });
  });

  it('run --json asks its long poll again after a dropped connection, and prints the run that ended meanwhile', async () => {
    const { service } = fixture;
    const idea = await service.createIdea('Polled through a drop');
    fixture.model.enqueue(waitForGo(service.projectDir(idea.id)), text('Done while cut off.'));
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: service.catalyst.port });
    onTestFinished(() => proxy.close());
    const cli = ['--url', proxy.url, '--token-file', files.tokenFile];
    const running = startCli([...cli, 'run', idea.id, '--build', 'Wait.', '--json']);
    await running.printed('waiting for it to end', 'stderr');
    proxy.hold();
    expect(proxy.dropConnections(), 'the command had a poll to drop').toBeGreaterThan(0);
    await writeFile(join(service.projectDir(idea.id), 'go'), '');
    await untilCompleted(idea.id);
    // The poll waiting at the held proxy is cut: the command must ask again to learn how the run ended.
    await waitUntil(() => proxy.dropConnections() > 0, { timeoutMs: 10_000, what: 'a poll to cut' });
    await running.printed('Lost the connection to Catalyst; the run goes on there. Trying again…', 'stderr');
    proxy.release();
    const exit = await running.exited;
    expect(exit.code, exit.stderr).toBe(0);
    expect(RunViewSchema.parse(JSON.parse(exit.stdout))).toMatchObject({
      state: 'completed',
      result: { result: 'Done while cut off.' },
    });
  });

  it('autopilot runs its steps in order with a line per step start and end, Claude’s text between, and exits 0', async () => {
    const idea = await fixture.service.createIdea('Autopilot from the CLI');
    fixture.model.enqueue(text('Planned.'), text('Executed.'));
    const exit = await run([
      'autopilot',
      idea.id,
      '--step',
      'chat:/gsd:plan-phase 1',
      '--step',
      'build:"/gsd:execute-phase 1"',
      '--budget',
      '5',
    ]);
    expect(exit.code, exit.stderr).toBe(0);
    const lines = exit.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^Autopilot ap-\S+: 2 steps, questions answered auto, at most \$5\.00$/);
    // Each step's run as chat and build show one: Claude's text, between the step's lines.
    expect(lines.slice(1, 7)).toEqual([
      '[1/2] started chat: /gsd:plan-phase 1',
      'Planned.',
      expect.stringMatching(/^\[1\/2\] completed · 1 turn · [\d.]+ m?s · \$\d+\.\d{4}$/),
      '[2/2] started build: /gsd:execute-phase 1',
      'Executed.',
      expect.stringMatching(/^\[2\/2\] completed · 1 turn · /),
    ]);
    expect(lines[7]).toMatch(/^Autopilot completed · \$\d+\.\d{4}$/);
    // The steps' outcomes are said once, by their lines: not by the runs' outcome lines too.
    expect(exit.stderr).not.toMatch(/^completed/m);
  });
});

describe('catalyst errors', () => {
  it('a usage error exits 2 with the command’s usage, without touching Catalyst', async () => {
    // Independent processes, started together: each start of the bin costs most of a second.
    const [missing, unknown, help] = await Promise.all([
      runCli(['build', 'idea-0123456789abcdef']),
      runCli(['deploy']),
      runCli(['--help']),
    ]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(
      'catalyst: build takes <idea> <message>\nUsage: catalyst build <idea> "message" [--budget USD] [--detach]\n' +
        "Run 'catalyst --help' for every command.\n",
    );
    expect(unknown).toMatchObject({ code: 2, stdout: '' });
    expect(unknown.stderr).toContain("catalyst: unknown command 'deploy'");
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Exit codes: 0 completed');
  });

  it('says in a sentence what Catalyst refused (a bad token, an unknown idea) and exits 1; 3 when it is not there', async () => {
    const badToken = join(files.dir, 'bad-token');
    await writeFile(badToken, 'not-the-token\n');
    const nobody = `http://127.0.0.1:${String(await closedPort())}`;
    const [refused, noFile, unknown, away] = await Promise.all([
      runCli(['ideas', '--url', fixture.service.catalyst.url, '--token-file', badToken]),
      runCli(['ideas', '--token-file', join(files.dir, 'missing')]),
      run(['run', 'idea-0000000000000000', '--chat', 'Hello?']),
      runCli(['ideas', '--url', nobody, '--token-file', files.tokenFile]),
    ]);
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr).toBe(
      'catalyst: This needs Catalyst’s access token: open the login link Catalyst printed when it started, or send an Authorization: Bearer header.\n',
    );
    expect(noFile.code).toBe(1);
    expect(noFile.stderr).toContain(
      `Cannot read Catalyst’s access token from ${join(files.dir, 'missing')} (no such file)`,
    );
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^catalyst: .*idea.*\n$/i);
    expect(unknown.stderr).not.toContain('    at ');
    expect(away.code).toBe(3);
    expect(away.stderr).toBe(`catalyst: Cannot reach Catalyst at ${nobody} (ECONNREFUSED): is it running?\n`);
  });
});
