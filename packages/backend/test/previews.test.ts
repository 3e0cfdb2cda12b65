import { copyFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ListeningPortsResponseSchema, PreviewLinkResponseSchema } from '@catalyst/protocol';
import { colorQuestion, freePort, text, toolUse, waitUntil } from '@catalyst/testkit';
import type { TaggedListener } from '../src/previews/core/listening-ports.ts';
import { observeListenerLookups } from '../src/previews/preview-listener.ts';
import { startNeighbourListener } from './neighbour-listener.ts';
import { previewFetch } from './preview-client.ts';
import { startRun, waitForQuestion } from './question-client.ts';
import { useServiceFixture } from './service-harness.ts';
import { APP, enter, post, previewOf, untilState } from './preview-test-kit.ts';

// Previews (issue 14), over the test kit's sshd: a small app (fixtures/preview-server.cjs) started as an idea's
// preview command on the VM, reached through Catalyst's preview server (an SSH direct-tcpip channel per
// connection), behind the preview's own one-time link and cookie.

const fixture = useServiceFixture();

describe('previews', () => {
  it('forwards only to the idea’s own listener: a neighbour on the other loopback address gets nothing', async () => {
    // Issue 25, finding 6: `localhost` on the VM may resolve to ::1 or 127.0.0.1 first; another user of the VM who
    // listens on the address the app does not hold must get neither the readiness probe nor any request.
    const { service, sshd } = fixture;
    // Every listener look-up of this Catalyst (in this process) with its tags and what it found: the readiness
    // probe's are those of the preview's tag alone (nothing else looks that tag up before the preview runs here).
    const lookups: { tags: readonly string[]; found: readonly TaggedListener[] }[] = [];
    const stopObserving = observeListenerLookups((tags, found) => lookups.push({ tags, found }));
    const probesOf = (tag: string) =>
      lookups.filter(({ tags }) => tags.length === 1 && tags[0] === tag).map(({ found }) => found);
    for (const [app, neighbourAddress] of [
      ['::1', '127.0.0.1'],
      ['127.0.0.1', '::1'],
    ] as const) {
      const idea = await service.createIdea(`Neighbour on ${neighbourAddress}`);
      const project = service.projectDir(idea.id);
      await copyFile(APP, join(project, 'server.cjs'));
      const port = await freePort();
      const neighbour = await startNeighbourListener(sshd.users.dash, neighbourAddress, port);
      try {
        await post(service, `/api/ideas/${idea.id}`, {
          previewCommand: `while [ ! -e go ]; do sleep 0.05; done; PREVIEW_BIND=${app} exec node server.cjs`,
          previewPort: port,
        });
        expect((await post(service, `/api/ideas/${idea.id}/preview/start`)).status).toBe(200);
        let tags = new Set<string>();
        await waitUntil(
          async () => {
            tags = new Set((await fixture.runProcesses(idea.id)).map(({ runTag }) => runTag));
            return tags.size > 0;
          },
          { timeoutMs: 10_000, what: `the preview command to run (${app})` },
        );
        expect(tags.size, app).toBe(1);
        const [tag = ''] = tags;
        // Only the neighbour listens on the port until `go` exists: two probes have looked and found nothing of
        // the preview's, and it is still starting.
        await waitUntil(() => probesOf(tag).length >= 2, {
          timeoutMs: 15_000,
          what: `two readiness probes of the preview (${app})`,
        });
        expect(probesOf(tag).flat(), app).toEqual([]);
        expect((await previewOf(service, idea.id)).state, app).toBe('starting');
        await writeFile(join(project, 'go'), '');
        const { url, origin } = await untilState(service, idea.id, 'running');
        if (url === undefined || origin === undefined) throw new Error('a running preview has a link');
        const cookie = await enter(url);
        const home = await previewFetch(`${origin}/`, { headers: { cookie } });
        expect(await home.text(), app).toContain('Hello from the preview');
        expect(neighbour.connections(), app).toBe(0);
        await post(service, `/api/ideas/${idea.id}/preview/stop`);
      } finally {
        await neighbour.stop();
      }
    }
    stopObserving();
  });

  it('lists the port a running build listens on, and opens it', async () => {
    const { service } = fixture;
    const idea = await service.createIdea('Build server');
    await copyFile(APP, join(service.projectDir(idea.id), 'server.cjs'));
    const port = await freePort();
    const client = await service.connect();
    await client.subscribe(idea.id);
    fixture.model.enqueue(
      toolUse('Bash', {
        command: `PORT=${port} node server.cjs`,
        description: 'Start the app',
        run_in_background: true,
      }),
      toolUse('AskUserQuestion', { questions: [colorQuestion] }),
      text('Done.'),
    );
    const started = await startRun(client, {
      ideaId: idea.id,
      mode: 'build',
      message: 'Start it and ask me',
    });
    const question = await waitForQuestion(client, 0);
    let ports: unknown;
    await waitUntil(
      async () => {
        ports = ListeningPortsResponseSchema.parse(
          await (await service.api(`/api/ideas/${idea.id}/preview/ports`)).json(),
        ).ports;
        return Array.isArray(ports) && ports.length > 0;
      },
      { timeoutMs: 10_000, intervalMs: 200, what: 'the build’s server to listen' },
    );
    expect(ports).toEqual([{ port, source: 'run' }]);
    const link = PreviewLinkResponseSchema.parse(
      await (await post(service, `/api/ideas/${idea.id}/preview/ports/${port}/link`)).json(),
    );
    const cookie = await enter(link.url);
    expect(
      await (await previewFetch(`${link.origin}/from-the-build`, { headers: { cookie } })).text(),
    ).toContain('<p id="path">/from-the-build</p>');

    // Issue 25, finding 6: the build's server goes away (a dev server restarting, say) and another user of the VM
    // binds its port at once: the link refuses to forward to a listener that is not the idea's.
    const servers = async () =>
      (await fixture.runProcesses(idea.id)).filter((process) => process.cmdline.includes('server.cjs'));
    for (const { pid } of await servers()) process.kill(pid, 'SIGKILL');
    await waitUntil(async () => (await servers()).length === 0, {
      timeoutMs: 10_000,
      intervalMs: 100,
      what: 'the build’s server to end',
    });
    const neighbour = await startNeighbourListener(fixture.sshd.users.dash, '127.0.0.1', port);
    try {
      const answer = await previewFetch(`${link.origin}/after-it-went`, { headers: { cookie } });
      expect(`${answer.status} ${await answer.text()}`).toMatch(/^502 .*no process of this idea listens/i);
      expect(neighbour.connections()).toBe(0);

      client.send({
        type: 'answer',
        ideaId: idea.id,
        questionId: question.questionId,
        answers: { [colorQuestion.question]: 'Blue' },
      });
      await client.untilEnded(started);
      client.close();
      const after = ListeningPortsResponseSchema.parse(
        await (await service.api(`/api/ideas/${idea.id}/preview/ports`)).json(),
      );
      expect(after.ports).toEqual([]);
      // The run's link ends with the run.
      await waitUntil(
        () =>
          previewFetch(`${link.origin}/`, { headers: { cookie } }).then(
            () => false,
            () => true,
          ),
        { timeoutMs: 5_000, intervalMs: 100, what: 'the run’s link to close' },
      );
      expect(neighbour.connections()).toBe(0);
    } finally {
      await neighbour.stop();
    }
  });
});
