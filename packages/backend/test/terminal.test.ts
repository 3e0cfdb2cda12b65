import { describe, expect, it } from 'vitest';
import { waitUntil } from '@catalyst/testkit';
import { z } from 'zod';
import { scanLocalProcesses } from './host-test-kit.ts';
import { refusedUpgrade } from './server-ws-client.ts';
import { useServiceFixture } from './service-harness.ts';
import { connectTerminal, openTerminal, runInTerminal as run, terminalUrl } from './terminal-client.ts';

// Issue 31: a terminal on the idea's host (the test kit's sshd, as its non-root bash user), in its project folder.

const fixture = useServiceFixture();

describe('the terminal over SSH', () => {
  it('opens in the project folder, runs commands, and follows a resize', async () => {
    const idea = await fixture.service.createIdea('Terminal basics');
    const { client, ready } = await openTerminal(fixture.service, idea.id);
    expect(ready).toMatchObject({
      ideaId: idea.id,
      cwd: fixture.service.projectDir(idea.id),
      isReattached: false,
    });

    expect(await run(client, 'pwd', 'done-pwd')).toContain(fixture.service.projectDir(idea.id));
    expect(await run(client, 'echo "hello-$((6*7))"', 'done-echo')).toContain('hello-42');
    expect(await run(client, 'stty size', 'done-size')).toContain('24 80');
    client.send({ type: 'resize', cols: 120, rows: 40 });
    expect(await run(client, 'stty size', 'done-resize')).toContain('40 120');

    client.send({ type: 'close' });
    expect(await client.waitForFrame('ended')).toMatchObject({ reason: 'closed' });
    expect((await client.closed).code).toBe(1000);
  });

  it('keeps the shell over a dropped socket: attached again by id, its variables are still set', async () => {
    const idea = await fixture.service.createIdea('Terminal reconnect');
    const { client, ready } = await openTerminal(fixture.service, idea.id);
    await run(client, 'KEPT=kept-$((1000+234))', 'done-set');
    client.socket.terminate();
    await client.closed;

    const again = await connectTerminal(fixture.service);
    again.send({ type: 'attach', ideaId: idea.id, terminalId: ready.terminalId, cols: 80, rows: 24 });
    expect(await again.waitForFrame('ready')).toMatchObject({
      terminalId: ready.terminalId,
      isReattached: true,
    });
    // The scrollback came first: what the shell printed before the drop.
    await again.waitForOutput(/done-set-42/);
    expect(await run(again, 'echo "value=$KEPT"', 'done-get')).toContain('value=kept-1234');
    again.send({ type: 'close' });
    await again.waitForFrame('ended');
  });

  it('leaves no process of it on the VM once closed, nor once its idea is deleted', async () => {
    const idea = await fixture.service.createIdea('Terminal cleanup');
    const closing = await openTerminal(fixture.service, idea.id);
    const deleting = await openTerminal(fixture.service, idea.id);
    await run(closing.client, 'sleep 301 & true', 'done-bg1');
    await run(deleting.client, 'nohup sleep 302 >/dev/null 2>&1 & true', 'done-bg2');
    // A job forked in the background shows the shell's command line until its exec: waited for.
    const commands = async () => (await fixture.runProcesses(idea.id)).map((found) => found.cmdline);
    await waitUntil(
      async () => (await commands()).filter((line) => line.startsWith('sleep 30')).length === 2,
      {
        timeoutMs: 10_000,
        what: 'the background sleeps to start',
      },
    );

    closing.client.send({ type: 'close' });
    expect(await closing.client.waitForFrame('ended')).toMatchObject({ reason: 'closed' });
    expect((await fixture.runProcesses(idea.id)).map((found) => found.cmdline)).not.toContain('sleep 301');

    // By tag, not by place: once deleted, the idea's folder is in the trash, and a survivor would work there.
    const tags = fixture.service.catalyst.services.terminals.runTagsOf(idea.id);
    expect(tags).toHaveLength(1);
    const deleted = await fixture.service.api(`/api/ideas/${idea.id}`, { method: 'DELETE' });
    expect(deleted.status).toBe(204);
    expect(await deleting.client.waitForFrame('ended')).toMatchObject({ reason: 'idea_deleted' });
    for (const tag of tags) expect(await scanLocalProcesses(tag)).toEqual([]);
  });

  it('says plainly that an unknown terminal has ended', async () => {
    const idea = await fixture.service.createIdea('Terminal unknown');
    const client = await connectTerminal(fixture.service);
    client.send({
      type: 'attach',
      ideaId: idea.id,
      terminalId: `term-${'0'.repeat(32)}`,
      cols: 80,
      rows: 24,
    });
    expect(await client.waitForFrame('error')).toMatchObject({ code: 'TERMINAL_NOT_FOUND' });
    expect((await client.closed).code).toBe(4004);
  });

  it('attaches a terminal only for its own idea, and never logs its id', async () => {
    const owner = await fixture.service.createIdea('Terminal owner');
    const other = await fixture.service.createIdea('Terminal other');
    const { client, ready } = await openTerminal(fixture.service, owner.id);
    const stranger = await connectTerminal(fixture.service);
    stranger.send({ type: 'attach', ideaId: other.id, terminalId: ready.terminalId, cols: 80, rows: 24 });
    expect(await stranger.waitForFrame('error')).toMatchObject({ code: 'TERMINAL_NOT_FOUND' });
    expect((await stranger.closed).code).toBe(4004);
    // The owner's socket was not displaced by the refused attach: its shell still answers.
    expect(await run(client, 'echo "still-$((2*3))"', 'done-still')).toContain('still-6');
    client.send({ type: 'close' });
    await client.waitForFrame('ended');
    expect(fixture.service.logText()).toContain('terminal opened');
    expect(fixture.service.logText()).not.toContain(ready.terminalId);
  });
});

describe('how many terminals a host takes', () => {
  it('holds a host to a quarter of its run slots over all its ideas, and says which host is full', async () => {
    // The test host's pool has the default 4 connections × 8 runs: 8 terminals, as 4 + 4 from two ideas.
    const first = await fixture.service.createIdea('Terminals one');
    const second = await fixture.service.createIdea('Terminals two');
    const third = await fixture.service.createIdea('Terminals three');
    const opened = await Promise.all(
      [first, first, first, first, second, second, second, second].map((idea) =>
        openTerminal(fixture.service, idea.id),
      ),
    );
    const refused = await connectTerminal(fixture.service);
    refused.send({ type: 'open', ideaId: third.id, cols: 80, rows: 24 });
    const error = await refused.waitForFrame('error');
    expect(error.code).toBe('TOO_MANY_TERMINALS');
    expect(error.message).toContain('The host vm has 8 terminals open already');
    expect((await refused.closed).code).toBe(4004);

    // A closed one makes room again.
    const [closing, ...rest] = opened;
    closing?.client.send({ type: 'close' });
    await closing?.client.waitForFrame('ended');
    const room = await openTerminal(fixture.service, third.id);
    for (const { client } of [...rest, room]) {
      client.send({ type: 'close' });
      await client.waitForFrame('ended');
    }
  });
});

describe('who may open a terminal', () => {
  it('refuses a preview’s origin even with a whole session, and a session cookie without its key', async () => {
    const { catalyst } = fixture.service;
    const login = await fetch(`${catalyst.url}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: catalyst.url },
      body: JSON.stringify({ token: catalyst.token }),
    });
    expect(login.status).toBe(200);
    const { key } = z.object({ key: z.string() }).parse(await login.json());
    const cookie = (login.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
    const protocols = [`catalyst-key.${key}`];

    const previewOrigin = `http://p-${'a'.repeat(20)}.localhost:${String(catalyst.port + 1)}`;
    const fromPreview = await refusedUpgrade(terminalUrl(fixture.service), {
      headers: { cookie },
      origin: previewOrigin,
      protocols,
    });
    expect(fromPreview.status).toBe(403);
    const cookieOnly = await refusedUpgrade(terminalUrl(fixture.service), {
      headers: { cookie },
      origin: catalyst.url,
    });
    expect(cookieOnly.status).toBe(401);
    const nothing = await refusedUpgrade(terminalUrl(fixture.service), { origin: catalyst.url });
    expect(nothing.status).toBe(401);
  });
});
