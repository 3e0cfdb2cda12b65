import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ApiErrorBodySchema,
  RunListResponseSchema,
  RunResponseSchema,
  type RunView,
} from '@catalyst/protocol';
import { text, toolUse, waitForFile } from '@catalyst/testkit';
import { type ServiceUnderTest } from '../service-harness.ts';
import { expectNothingLeft } from './fast-kit.ts';
import { useFastService } from './fast-harness.ts';

// Runs without a browser (issue 12): a client starts one over REST, waits for it with a long poll, reads its
// CommandResult, lists the idea's runs and cancels one. Every such run is an ordinary run: the same history,
// relay, one run per idea.

const fixture = useFastService();

async function post(service: ServiceUnderTest, path: string, body?: unknown): Promise<Response> {
  return service.api(path, { method: 'POST', ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
}

async function runOf(response: Response): Promise<RunView> {
  return RunResponseSchema.parse(await response.json()).run;
}

async function errorOf(response: Response) {
  return ApiErrorBodySchema.parse(await response.json()).error;
}

/** A Bash step that waits until `go` exists in the project. */
function waitForGo(projectDir: string) {
  return toolUse('Bash', {
    command: `${waitForFile(join(projectDir, 'go'))}; echo went`,
    description: 'Wait for go',
  });
}

describe('runs over REST', () => {
  it('starts a run, holds a long poll until it ends, answers its CommandResult, and lists it after a restart', async () => {
    const { service } = fixture;
    const idea = await service.createIdea('Programmatic');
    const projectDir = service.projectDir(idea.id);
    fixture.model.enqueue(waitForGo(projectDir), text('Built it.'));

    const started = await post(service, `/api/ideas/${idea.id}/runs`, {
      mode: 'build',
      message: 'Build it.',
    });
    expect(started.status).toBe(202);
    const run = await runOf(started);
    expect(run).toMatchObject({ ideaId: idea.id, mode: 'build', message: 'Build it.', state: 'running' });

    // One run per idea: a second start names the run in the way.
    const second = await post(service, `/api/ideas/${idea.id}/runs`, { mode: 'chat', message: 'And?' });
    expect(second.status).toBe(409);
    expect(await errorOf(second)).toMatchObject({ code: 'RUN_IN_PROGRESS', runId: run.id });

    // The long poll is still held while the Bash step waits; it answers once the run has ended.
    let isAnswered = false;
    const polled = service.api(`/api/runs/${run.id}?waitMs=60000`).then(async (response) => {
      isAnswered = true;
      expect(response.status).toBe(200);
      return runOf(response);
    });
    const client = await service.connect();
    await client.subscribe(idea.id);
    await client.waitFor((f) => f.type === 'claude:tool_use');
    expect(isAnswered).toBe(false);
    await writeFile(join(projectDir, 'go'), '');
    const ended = await polled;
    expect(ended).toMatchObject({
      id: run.id,
      state: 'completed',
      result: { success: true, result: 'Built it.' },
    });
    expect(ended.endedAt).toBeDefined();
    client.close();

    // From the history, so a restarted Catalyst knows it too.
    await service.catalyst.close({ keepRuns: true });
    const restarted = await fixture.restartService();
    expect(await runOf(await restarted.api(`/api/runs/${run.id}`))).toEqual(ended);
    const listed = await restarted.api(`/api/ideas/${idea.id}/runs?limit=5`);
    expect(RunListResponseSchema.parse(await listed.json()).runs).toEqual([ended]);
  });

  it('cancels a run by its id; the run ends cancelled with nothing left on the VM', async () => {
    const { service } = fixture;
    const idea = await service.createIdea('Cancelled programmatically');
    fixture.model.enqueue(waitForGo(service.projectDir(idea.id)));
    const run = await runOf(
      await post(service, `/api/ideas/${idea.id}/runs`, { mode: 'build', message: 'Go.' }),
    );
    const client = await service.connect();
    await client.subscribe(idea.id);
    await client.waitFor((f) => f.type === 'claude:tool_use');

    const cancelled = await post(service, `/api/runs/${run.id}/cancel`);
    expect(cancelled.status).toBe(202);
    const ended = await runOf(await service.api(`/api/runs/${run.id}?waitMs=30000`));
    expect(ended.state).toBe('cancelled');
    await expectNothingLeft(fixture, idea.id);

    const again = await post(service, `/api/runs/${run.id}/cancel`);
    expect(again.status).toBe(409);
    expect(await errorOf(again)).toMatchObject({ code: 'NO_RUN' });
    client.close();
  });

  it('stops at the idea’s budget: the CLI stops itself there, and no run starts until the budget is raised', async () => {
    const { service } = fixture;
    const idea = await service.createIdea('On a budget');
    const patch = (budgetUsd: number | null) =>
      service.api(`/api/ideas/${idea.id}`, { method: 'PATCH', body: JSON.stringify({ budgetUsd }) });
    // Less than one model call costs: the CLI stops before it runs the tool it was asked for.
    expect((await patch(0.0001)).status).toBe(200);
    fixture.model.enqueue(toolUse('Bash', { command: 'echo never', description: 'Never runs' }));
    const run = await runOf(
      await post(service, `/api/ideas/${idea.id}/runs`, { mode: 'build', message: 'Go.' }),
    );
    const stopped = await runOf(await service.api(`/api/runs/${run.id}?waitMs=30000`));
    expect(stopped).toMatchObject({
      state: 'failed',
      error: { code: 'BUDGET_EXCEEDED' },
      result: { subtype: 'error_max_budget_usd' },
    });

    const refused = await post(service, `/api/ideas/${idea.id}/runs`, { mode: 'chat', message: 'Again?' });
    expect(refused.status).toBe(409);
    const refusal = await errorOf(refused);
    expect(refusal.code).toBe('BUDGET_EXCEEDED');
    expect(refusal.message).toContain('$0.0001 budget');

    expect((await patch(null)).status).toBe(200);
    fixture.model.enqueue(text('Free to go on.'));
    const again = await runOf(
      await post(service, `/api/ideas/${idea.id}/runs`, { mode: 'chat', message: 'Now?' }),
    );
    expect((await runOf(await service.api(`/api/runs/${again.id}?waitMs=30000`))).state).toBe('completed');

    // A run's own cap, with no budget on the idea: the CLI stops itself there too.
    fixture.model.enqueue(toolUse('Bash', { command: 'echo never', description: 'Never runs' }));
    const capped = await runOf(
      await post(service, `/api/ideas/${idea.id}/runs`, {
        mode: 'build',
        message: 'Capped.',
        maxBudgetUsd: 0.0001,
      }),
    );
    expect(await runOf(await service.api(`/api/runs/${capped.id}?waitMs=30000`))).toMatchObject({
      state: 'failed',
      error: { code: 'BUDGET_EXCEEDED' },
    });
  });

  it('answers 404 RUN_NOT_FOUND for a run that does not exist, and 400 for what is not a run id or a wait', async () => {
    const { service } = fixture;
    const idea = await service.createIdea('No such run');
    const unknown = `run-${idea.id.slice(5)}-00000000-0000-4000-8000-000000000000`;
    const missing = await service.api(`/api/runs/${unknown}`);
    expect(missing.status).toBe(404);
    expect(await errorOf(missing)).toMatchObject({ code: 'RUN_NOT_FOUND' });
    const elsewhere = await service.api(
      `/api/runs/run-0000000000000000-00000000-0000-4000-8000-000000000000`,
    );
    expect(elsewhere.status).toBe(404);
    for (const path of [
      `/api/runs/..%2Fetc`,
      `/api/runs/${unknown}?waitMs=60001`,
      `/api/runs/${unknown}?waitMs=-1`,
    ]) {
      const response = await service.api(path);
      expect(response.status, path).toBe(400);
      expect(await errorOf(response)).toMatchObject({ code: 'INVALID_ARGUMENT' });
    }
    const badBody = await post(service, `/api/ideas/${idea.id}/runs`, { mode: 'deploy', message: 'x' });
    expect(badBody.status).toBe(400);
    expect(
      RunListResponseSchema.parse(await (await service.api(`/api/ideas/${idea.id}/runs`)).json()),
    ).toEqual({
      runs: [],
    });
  });
});
