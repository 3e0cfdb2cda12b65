import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ApiErrorBodySchema, AutopilotResponseSchema, type AutopilotView } from '@catalyst/protocol';
import { colorQuestion, text, toolUse, waitForFile, waitUntil } from '@catalyst/testkit';
import { type ServiceUnderTest } from '../service-harness.ts';
import { expectNothingLeft } from './fast-kit.ts';
import { useFastService } from './fast-harness.ts';

// Autopilot (issue 12): an idea's steps run one after the other with nobody watching, each an ordinary run, the
// questions answered under the autopilot's own policy; its view and its events say how each step went.

const fixture = useFastService();

async function post(service: ServiceUnderTest, path: string, body?: unknown): Promise<Response> {
  return service.api(path, { method: 'POST', ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
}

async function autopilotOf(response: Response): Promise<AutopilotView> {
  expect(response.status, await response.clone().text()).toBeLessThan(300);
  return AutopilotResponseSchema.parse(await response.json()).autopilot;
}

async function untilEnded(service: ServiceUnderTest, id: string): Promise<AutopilotView> {
  const client = await service.connect();
  const ideaId = `idea-${id.slice(3, 19)}`;
  await client.subscribe(ideaId);
  await client.waitFor((f) => f.type === 'autopilot:ended' && f.autopilotId === id);
  client.close();
  return autopilotOf(await service.api(`/api/autopilots/${id}`));
}

/**
 * An autopilot of two steps whose first one's Bash step waits (for a `go` nobody writes), watched by a client
 * subscribed to the idea; resolves once the step's tool call is out.
 */
async function startWaitingAutopilot(title: string, options: { stopOnFailure?: boolean } = {}) {
  const { service } = fixture;
  const idea = await service.createIdea(title);
  const go = join(service.projectDir(idea.id), 'go');
  fixture.model.enqueue(toolUse('Bash', { command: waitForFile(go), description: 'Wait' }));
  const started = await autopilotOf(
    await post(service, `/api/ideas/${idea.id}/autopilot`, {
      steps: [
        { mode: 'build', message: 'Wait.' },
        { mode: 'chat', message: 'Never runs.' },
      ],
      ...options,
    }),
  );
  const client = await service.connect();
  await client.subscribe(idea.id);
  await client.waitFor((f) => f.type === 'claude:tool_use');
  return { idea, started, client };
}

const reply = (label: string) => text(JSON.stringify({ answers: { [colorQuestion.question]: label } }));

describe('autopilot', () => {
  it('runs three steps in order, the second answering a question by itself, each with its CommandResult', async () => {
    const { service } = fixture;
    const idea = await service.createIdea('Autopilot');
    fixture.model.enqueue(
      text('Planned.'),
      toolUse('AskUserQuestion', { questions: [colorQuestion] }),
      reply('Blue'),
      text('Executed in blue.'),
      text('Verified.'),
    );
    const started = await autopilotOf(
      await post(service, `/api/ideas/${idea.id}/autopilot`, {
        steps: [
          { mode: 'chat', message: '/plan-phase 1' },
          { mode: 'build', message: '/execute-phase 1' },
          { mode: 'chat', message: '/verify-phase 1' },
        ],
      }),
    );
    expect(started).toMatchObject({ ideaId: idea.id, state: 'running', questionPolicy: 'auto' });

    const ended = await untilEnded(service, started.id);
    expect(ended.state).toBe('completed');
    expect(ended.steps.map((step) => [step.state, step.result?.result])).toEqual([
      ['completed', 'Planned.'],
      ['completed', 'Executed in blue.'],
      ['completed', 'Verified.'],
    ]);
    expect(ended.questions).toMatchObject({
      questionsAsked: 1,
      questionsAnsweredAutomatically: 1,
      autoAnswerRetries: 0,
    });
    expect(ended.questions.auxiliaryCostUsd).toBeGreaterThan(0);
    expect(ended.costUsd).toBeCloseTo(
      ended.steps.reduce((sum, step) => sum + (step.result?.costUsd ?? 0), 0),
      10,
    );
    // The idea's own policy is unchanged: the autopilot's applied to its runs only.
    const meta = (await (await service.api(`/api/ideas/${idea.id}`)).json()) as { idea: { meta: unknown } };
    expect(meta.idea.meta).toMatchObject({
      questionPolicy: 'human',
      totals: { questionsAnsweredAutomatically: 1 },
    });
    expect(await autopilotOf(await service.api(`/api/ideas/${idea.id}/autopilot`))).toEqual(ended);
  });

  it('cancel stops the running step and skips the rest, leaving nothing on the VM; meanwhile no other run', async () => {
    const { service } = fixture;
    const { idea, started, client } = await startWaitingAutopilot('Autopilot cancelled');
    // While it runs, the idea takes no other run (a message waits in its queue) and no second autopilot.
    client.send({ type: 'chat', ideaId: idea.id, message: 'Me too?' });
    const queued = await client.waitFor((f) => f.type === 'autopilot:queue_changed');
    expect(queued).toMatchObject({
      autopilotId: started.id,
      pending: [{ message: 'Never runs.' }, { message: 'Me too?' }],
    });
    const second = await post(service, `/api/ideas/${idea.id}/autopilot`, {
      steps: [{ mode: 'chat', message: 'Another.' }],
    });
    expect(second.status).toBe(409);
    const cancelled = await post(service, `/api/autopilots/${started.id}/cancel`);
    expect(cancelled.status).toBe(202);
    await client.waitFor((f) => f.type === 'autopilot:ended');
    client.close();
    const ended = await autopilotOf(await service.api(`/api/autopilots/${started.id}`));
    expect(ended.state).toBe('cancelled');
    expect(ended.steps.map((step) => step.state)).toEqual(['cancelled', 'skipped', 'skipped']);
    await expectNothingLeft(fixture, idea.id);
    const twice = await post(service, `/api/autopilots/${started.id}/cancel`);
    expect(twice.status).toBe(409);
    expect(ApiErrorBodySchema.parse(await twice.json()).error.code).toBe('NO_RUN');
  });

  it('a step stopped from the page (its run cancelled) stops the autopilot, even with stopOnFailure off', async () => {
    const { service } = fixture;
    const { idea, started, client } = await startWaitingAutopilot('Autopilot stopped from the page', {
      stopOnFailure: false,
    });
    client.send({ type: 'cancel', ideaId: idea.id });
    await client.waitFor((f) => f.type === 'autopilot:ended');
    client.close();
    const ended = await autopilotOf(await service.api(`/api/autopilots/${started.id}`));
    expect(ended.state).toBe('cancelled');
    expect(ended.steps.map((step) => step.state)).toEqual(['cancelled', 'skipped']);
  });

  it('goes on where it was after Catalyst restarts mid-step: the step’s run is taken up, the next step runs', async () => {
    const idea = await fixture.service.createIdea('Autopilot across a restart');
    const go = join(fixture.service.projectDir(idea.id), 'go');
    fixture.model.enqueue(
      toolUse('Bash', { command: waitForFile(go), description: 'Wait' }),
      text('First step done.'),
      text('Second step done.'),
    );
    const started = await autopilotOf(
      await post(fixture.service, `/api/ideas/${idea.id}/autopilot`, {
        steps: [
          { mode: 'build', message: 'Wait for go.' },
          { mode: 'chat', message: 'Then say so.' },
        ],
      }),
    );
    const client = await fixture.service.connect();
    await client.subscribe(idea.id);
    await client.waitFor((f) => f.type === 'claude:tool_use');
    client.close();

    await fixture.service.catalyst.close({ keepRuns: true });
    const restarted = await fixture.restartService();
    await restarted.catalyst.swept;
    await writeFile(go, '');
    const ended = await untilEnded(restarted, started.id);
    expect(ended.state).toBe('completed');
    expect(ended.steps.map((step) => [step.state, step.result?.result])).toEqual([
      ['completed', 'First step done.'],
      ['completed', 'Second step done.'],
    ]);
    // Once over (its end written first), meta.json no longer names it: the next restart has nothing to go on with.
    await waitUntil(
      async () => {
        const body = (await (await restarted.api(`/api/ideas/${idea.id}`)).json()) as {
          idea: { meta: object };
        };
        return !('autopilotId' in body.idea.meta);
      },
      { timeoutMs: 10_000, what: 'meta.json to no longer name the autopilot' },
    );
  });
});
