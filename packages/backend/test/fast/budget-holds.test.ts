import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { API, apiPath, spentUsd, type IdeaMeta } from '@catalyst/protocol';
import { stall, text, toolUse, waitUntil } from '@catalyst/testkit';
import { describe, expect, it } from 'vitest';
import { makeFifo, releaseFifo } from '../fifo-test-kit.ts';
import { type ServiceUnderTest } from '../service-harness.ts';
import { expectNothingLeft } from './fast-kit.ts';
import { liveJobsOf } from './fast-kit.ts';
import { useFastService } from './fast-harness.ts';

// Issue 39 on the in-process host. The caps (`--max-budget-usd`) of an idea's claude
// processes that run at once never add up past what its budget leaves: each start holds its cap against the budget.

const fixture = useFastService();

async function metaOf(service: ServiceUnderTest, ideaId: string): Promise<IdeaMeta> {
  const { idea } = API.getIdea.response.parse(await (await service.api(`/api/ideas/${ideaId}`)).json());
  if (idea.meta === undefined) throw new Error('the idea has no meta');
  return idea.meta;
}

async function call(
  service: ServiceUnderTest,
  method: string,
  path: string,
  body: unknown,
): Promise<Response> {
  return service.api(path, { method, body: JSON.stringify(body) });
}

function ask(service: ServiceUnderTest, ideaId: string, question: string): Promise<Response> {
  return call(service, 'POST', apiPath(API.askAside, { params: { id: ideaId } }), { question });
}

/** The `--max-budget-usd` of each claude of the idea running on the VM now. */
function capsOf(ideaId: string): Promise<number[]> {
  return Promise.resolve(
    liveJobsOf(fixture, ideaId).flatMap(({ spec: { argv } }) => {
      const at = argv.indexOf('--max-budget-usd');
      return argv[0] === fixture.vm.claudePath && at !== -1 ? [Number(argv[at + 1])] : [];
    }),
  );
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

describe('budget holds (issue 39)', () => {
  it('a build and an aside share what the budget leaves; a second aside is refused with the budget error', async () => {
    const { service, model } = fixture;
    const idea = await service.createIdea('Budget shared by a build and its asides');
    const client = await service.connect();
    await client.subscribe(idea.id);
    model.enqueue(text('Notes go in SQLite.'));
    await client.run(idea.id, 'chat', 'Start a notes app.');
    client.close();
    expect((await call(service, 'PATCH', `/api/ideas/${idea.id}`, { budgetUsd: 3 })).status).toBe(200);
    const left = 3 - spentUsd(await metaOf(service, idea.id));

    const gateDir = await mkdtemp(join(tmpdir(), 'catalyst-budget-'));
    await chmod(gateDir, 0o755);
    const gate = join(gateDir, 'gate');
    makeFifo(gate);
    try {
      model.enqueue(toolUse('Bash', { command: `cat ${gate}`, description: 'Wait for the gate' }));
      const started = await call(service, 'POST', `/api/ideas/${idea.id}/runs`, {
        mode: 'build',
        message: 'Add tagging.',
        maxBudgetUsd: 1,
      });
      expect(started.status).toBe(202);
      const { run } = API.startRun.response.parse(await started.json());
      await waitUntil(
        async () => (await fixture.runProcesses(idea.id)).some((p) => p.cmdline === `cat ${gate}`),
        { timeoutMs: 15_000, what: 'the build’s Bash step to wait on the gate' },
      );
      expect(await capsOf(idea.id)).toEqual([1]);

      const base = model.requests.length;
      model.enqueue(stall());
      expect((await ask(service, idea.id, 'Why SQLite?')).status).toBe(202);
      await model.waitForRequest(base);
      const caps = await capsOf(idea.id);
      expect(caps).toHaveLength(2);
      expect(sum(caps), `caps ${caps.join(' + ')} against $${String(left)} left`).toBeLessThanOrEqual(left);

      const refused = await ask(service, idea.id, 'And tags?');
      expect(refused.status).toBe(409);
      expect(await refused.json()).toMatchObject({ error: { code: 'BUDGET_EXCEEDED' } });
      expect(sum(await capsOf(idea.id))).toBeLessThanOrEqual(left);

      model.enqueue(text('Tagging is in.'));
      await writeFile(gate, 'open\n');
      const ended = await service.api(`/api/runs/${run.id}?waitMs=30000`);
      expect(API.getRun.response.parse(await ended.json()).run.state).toBe('completed');
    } finally {
      await releaseFifo(gate);
      await rm(gateDir, { recursive: true, force: true });
    }
    expect((await service.api(`/api/ideas/${idea.id}`, { method: 'DELETE' })).status).toBe(204);
    await expectNothingLeft(fixture, idea.id);
  });

  it('a warm claude whose cap an aside’s cost outgrew is not given the next turn', async () => {
    const { service, model } = fixture;
    const idea = await service.createIdea('Warm claude on a budget');
    expect((await call(service, 'PATCH', `/api/ideas/${idea.id}`, { budgetUsd: 3 })).status).toBe(200);
    const client = await service.connect();
    await client.subscribe(idea.id);
    model.enqueue(text('Notes go in SQLite.'));
    await client.run(idea.id, 'chat', 'Start a notes app.');
    model.enqueue(text('A single file.'));
    expect((await ask(service, idea.id, 'Why SQLite?')).status).toBe(202);
    await client.waitFor((frame) => frame.type === 'aside:answered');
    const meta = await metaOf(service, idea.id);
    expect(meta.totals.auxiliaryCostUsd).toBeGreaterThan(0);
    const left = 3 - spentUsd(meta);

    model.enqueue(text('Tags next.'));
    await client.run(idea.id, 'chat', 'What next?');
    client.close();
    // The claude left waiting for the next turn started with no more than the budget left before this one.
    const caps = await capsOf(idea.id);
    expect(caps).toHaveLength(1);
    expect(caps[0], `a warm cap against $${String(left)} left`).toBeLessThanOrEqual(left);
    expect((await service.api(`/api/ideas/${idea.id}`, { method: 'DELETE' })).status).toBe(204);
    await expectNothingLeft(fixture, idea.id);
  });
});
