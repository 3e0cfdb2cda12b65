import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ApiErrorBodySchema,
  AutopilotResponseSchema,
  QueueResponseSchema,
  type AutopilotView,
  type RelayEvent,
} from '@catalyst/protocol';
import { text, toolUse, waitForFile } from '@catalyst/testkit';
import { CONTINUE_MESSAGE } from '../../src/queue/autopilots.ts';
import type { IdeaClient, ServiceUnderTest } from '../service-harness.ts';
import { useFastService } from './fast-harness.ts';

// The queue of next messages (issue 30): sent while a run goes, they wait, editable and reorderable, and go in
// order once the idea is idle; a failed run pauses the queue, "send now" stops the turn and goes next; a budget
// reached pauses an autopilot (before a step, or the CLI's own stop inside one) until it is raised, across restarts.

// On the in-process host (fast-harness.ts): the same script as the end-to-end tier's, answered in this process.
const fixture = useFastService();

async function call(service: ServiceUnderTest, method: string, path: string, body?: unknown) {
  return service.api(path, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
}

async function queueOf(response: Response): Promise<AutopilotView> {
  expect(response.status, await response.clone().text()).toBeLessThan(300);
  const { queue } = QueueResponseSchema.parse(await response.json());
  if (queue === null) throw new Error('no queue');
  return queue;
}

async function untilEnded(service: ServiceUnderTest, ideaId: string, id: string): Promise<AutopilotView> {
  const client = await service.connect();
  await client.subscribe(ideaId);
  await client.waitFor((f) => f.type === 'autopilot:ended' && f.autopilotId === id);
  client.close();
  return AutopilotResponseSchema.parse(await (await service.api(`/api/autopilots/${id}`)).json()).autopilot;
}

/** A build whose Bash step waits for a `go` file, watched by a client; resolves once its tool call is out. */
async function startWaitingBuild(title: string) {
  const { service } = fixture;
  const idea = await service.createIdea(title);
  const go = join(service.projectDir(idea.id), 'go');
  fixture.model.enqueue(toolUse('Bash', { command: waitForFile(go), description: 'Wait' }));
  const client = await service.connect();
  await client.subscribe(idea.id);
  client.send({ type: 'build', ideaId: idea.id, message: 'Wait for go.' });
  await client.waitFor((f) => f.type === 'claude:tool_use');
  return { idea, go, client, release: () => writeFile(go, '') };
}

const startedMessages = (events: readonly RelayEvent[]) =>
  events.flatMap((event) => (event.type === 'run:started' ? [event.message] : []));

async function historyOf(service: ServiceUnderTest, ideaId: string): Promise<RelayEvent[]> {
  const client = await service.connect();
  await client.subscribe(ideaId);
  const events = client.events();
  client.close();
  return events;
}

const add = (service: ServiceUnderTest, ideaId: string, message: string, extra: object = {}) =>
  call(service, 'POST', `/api/ideas/${ideaId}/queue`, { mode: 'chat', message, ...extra });

function waitForPause(client: IdeaClient) {
  return client.waitFor((f) => f.type === 'autopilot:paused');
}

describe('the queue of next messages', () => {
  it('runs messages queued during a build after it, as edited and reordered, each once, across a restart', async () => {
    const { idea, client, release } = await startWaitingBuild('Queued during a build');
    fixture.model.enqueue(
      text('Built.'),
      text('Third, first.'),
      text('First.'),
      text('Second, edited.'),
      text('Fourth.'),
    );
    // From the composer: a chat frame while the idea is busy is queued, not refused.
    client.send({ type: 'chat', ideaId: idea.id, message: 'First?' });
    await client.waitFor((f) => f.type === 'autopilot:started');
    await queueOf(await add(fixture.service, idea.id, 'Second?'));
    let queue = await queueOf(await add(fixture.service, idea.id, 'Third?'));
    expect(queue).toMatchObject({ kind: 'queue', state: 'running' });
    const [, second, third] = queue.steps;
    if (second === undefined || third === undefined) throw new Error('three steps expected');
    await queueOf(
      await call(fixture.service, 'PATCH', `/api/ideas/${idea.id}/queue/${second.id}`, {
        message: 'Second, edited?',
      }),
    );
    queue = await queueOf(
      await call(fixture.service, 'PATCH', `/api/ideas/${idea.id}/queue/${third.id}`, { position: 0 }),
    );
    expect(queue.steps.map((step) => [step.message, step.state])).toEqual([
      ['Third?', 'pending'],
      ['First?', 'pending'],
      ['Second, edited?', 'pending'],
    ]);
    // Every tab sees it: the changes are events of the idea's history.
    await client.waitFor((f) => f.type === 'autopilot:queue_changed' && f.pending[0]?.message === 'Third?');
    client.close();

    // A restart while the build still runs: the queue is in the history, and meta.json names it.
    await fixture.service.catalyst.close({ keepRuns: true });
    const restarted = await fixture.restartService();
    // At once, before the new Catalyst has taken up what the last one left: an edit waits for the queue instead of
    // being refused, and a message added joins it instead of beginning a second queue beside it.
    const edited = await queueOf(
      await call(restarted, 'PATCH', `/api/ideas/${idea.id}/queue/${second.id}`, {
        message: 'Second, again?',
      }),
    );
    expect(edited.id).toBe(queue.id);
    expect((await queueOf(await add(restarted, idea.id, 'Fourth?'))).id).toBe(queue.id);
    await restarted.catalyst.swept;
    const kept = await queueOf(await restarted.api(`/api/ideas/${idea.id}/queue`));
    expect(kept.steps.map((step) => step.message)).toEqual(['Third?', 'First?', 'Second, again?', 'Fourth?']);
    await release();
    const ended = await untilEnded(restarted, idea.id, queue.id);
    expect(ended.state).toBe('completed');
    expect(ended.steps.map((step) => [step.message, step.state, step.result?.result])).toEqual([
      ['Third?', 'completed', 'Third, first.'],
      ['First?', 'completed', 'First.'],
      ['Second, again?', 'completed', 'Second, edited.'],
      ['Fourth?', 'completed', 'Fourth.'],
    ]);
    // Each once, in the new order, after the build.
    expect(startedMessages(await historyOf(restarted, idea.id))).toEqual([
      'Wait for go.',
      'Third?',
      'First?',
      'Second, again?',
      'Fourth?',
    ]);
    expect(
      QueueResponseSchema.parse(await (await restarted.api(`/api/ideas/${idea.id}/queue`)).json()),
    ).toEqual({
      queue: null,
    });
  });

  it('pauses when a queued message’s run fails, says why, and goes on with the rest when resumed', async () => {
    const { idea, client, release } = await startWaitingBuild('Queue paused by a failure');
    // The first queued message's request finds no scripted reply: the model refuses it (HTTP 400), the run fails.
    fixture.model.enqueue(text('Built.'));
    await queueOf(await add(fixture.service, idea.id, 'This one fails.'));
    const queue = await queueOf(await add(fixture.service, idea.id, 'Then this.'));
    const removed = await call(fixture.service, 'DELETE', `/api/ideas/${idea.id}/queue/q-missing`);
    expect(ApiErrorBodySchema.parse(await removed.json()).error.code).toBe('QUEUE_STEP_NOT_FOUND');
    await release();
    const paused = await waitForPause(client);
    expect(paused).toMatchObject({ reason: 'failed' });
    const view = await queueOf(await fixture.service.api(`/api/ideas/${idea.id}/queue`));
    expect(view.state).toBe('paused');
    expect(view.paused?.message).toContain('Step 1 failed');
    expect(view.steps.map((step) => step.state)).toEqual(['failed', 'pending']);
    // Nothing more runs while it waits.
    expect(startedMessages(client.events())).toEqual(['Wait for go.', 'This one fails.']);
    fixture.model.enqueue(text('After the pause.'));
    await queueOf(await call(fixture.service, 'POST', `/api/ideas/${idea.id}/queue/resume`, {}));
    const ended = await untilEnded(fixture.service, idea.id, queue.id);
    client.close();
    expect(ended.state).toBe('completed');
    expect(ended.steps.map((step) => [step.state, step.result?.result])).toEqual([
      ['failed', undefined],
      ['completed', 'After the pause.'],
    ]);
  });

  it('“send now” stops the turn that runs and sends that message next, without pausing the queue', async () => {
    const { idea, client } = await startWaitingBuild('Send now');
    fixture.model.enqueue(text('Now, then.'), text('Later, then.'));
    await queueOf(await add(fixture.service, idea.id, 'Later.'));
    const queue = await queueOf(await add(fixture.service, idea.id, 'Now!'));
    const now = queue.steps.find((step) => step.message === 'Now!');
    if (now === undefined) throw new Error('queued step expected');
    await queueOf(await call(fixture.service, 'POST', `/api/ideas/${idea.id}/queue/${now.id}/send-now`));
    const ended = await untilEnded(fixture.service, idea.id, queue.id);
    client.close();
    expect(ended.state).toBe('completed');
    expect(ended.steps.map((step) => [step.message, step.result?.result])).toEqual([
      ['Now!', 'Now, then.'],
      ['Later.', 'Later, then.'],
    ]);
    const events = await historyOf(fixture.service, idea.id);
    expect(events.find((event) => event.type === 'run:ended')).toMatchObject({ outcome: 'cancelled' });
    expect(events.some((event) => event.type === 'autopilot:paused')).toBe(false);
  });
});

describe('budgets that pause', () => {
  it('an autopilot that spends its budget in step 2 of 3 pauses, survives a restart, and completes once raised', async () => {
    const { service } = fixture;
    const idea = await service.createIdea('Autopilot paused by its budget');
    const go = join(service.projectDir(idea.id), 'go');
    fixture.model.enqueue(
      text('One.'),
      toolUse('Bash', { command: waitForFile(go), description: 'Wait' }),
      text('Two.'),
      text('Three.'),
    );
    const client = await service.connect();
    await client.subscribe(idea.id);
    const started = AutopilotResponseSchema.parse(
      await (
        await call(service, 'POST', `/api/ideas/${idea.id}/autopilot`, {
          steps: [
            { mode: 'chat', message: 'One?' },
            { mode: 'build', message: 'Two: wait for go.' },
            { mode: 'chat', message: 'Three?' },
          ],
        })
      ).json(),
    ).autopilot;
    await client.waitFor((f) => f.type === 'claude:tool_use');
    // While step 2 runs, a budget that step 1 almost spent: step 2 goes over it, so step 3 waits.
    const during = await queueOf(await service.api(`/api/ideas/${idea.id}/queue`));
    const budget = during.costUsd + 0.000001;
    await queueOf(await call(service, 'PATCH', `/api/ideas/${idea.id}/queue`, { maxBudgetUsd: budget }));
    await writeFile(go, '');
    const paused = await waitForPause(client);
    client.close();
    expect(paused).toMatchObject({ reason: 'budget' });
    expect(paused.type === 'autopilot:paused' && paused.message).toMatch(
      /Paused before step 3: .*spent \$[\d.]+ of/,
    );

    await service.catalyst.close({ keepRuns: true });
    const restarted = await fixture.restartService();
    await restarted.catalyst.swept;
    const kept = await queueOf(await restarted.api(`/api/ideas/${idea.id}/queue`));
    expect(kept).toMatchObject({ id: started.id, state: 'paused', paused: { reason: 'budget' } });
    expect(kept.steps.map((step) => step.state)).toEqual(['completed', 'completed', 'pending']);
    // Resuming without more budget is refused with the sentence; raising it goes on.
    const refused = await call(restarted, 'POST', `/api/ideas/${idea.id}/queue/resume`, {});
    expect(ApiErrorBodySchema.parse(await refused.json()).error.code).toBe('BUDGET_EXCEEDED');
    await queueOf(await call(restarted, 'PATCH', `/api/ideas/${idea.id}/queue`, { maxBudgetUsd: 5 }));
    const ended = await untilEnded(restarted, idea.id, started.id);
    expect(ended.state).toBe('completed');
    expect(ended.steps.map((step) => step.result?.result)).toEqual(['One.', 'Two.', 'Three.']);
  });

  it('the CLI’s own budget stop inside a step pauses it; raised, the step goes on in the same session', async () => {
    const { service } = fixture;
    const idea = await service.createIdea('Stopped mid-step by the budget');
    // Less than one model call costs: the CLI stops before it runs the tool it asked for.
    fixture.model.enqueue(
      toolUse('Bash', { command: 'echo never', description: 'Never runs' }),
      text('Went on.'),
    );
    const client = await service.connect();
    await client.subscribe(idea.id);
    const started = AutopilotResponseSchema.parse(
      await (
        await call(service, 'POST', `/api/ideas/${idea.id}/autopilot`, {
          steps: [{ mode: 'build', message: 'Build.' }],
          maxBudgetUsd: 0.0001,
        })
      ).json(),
    ).autopilot;
    const paused = await waitForPause(client);
    expect(paused).toMatchObject({ reason: 'budget' });
    const view = await queueOf(await service.api(`/api/ideas/${idea.id}/queue`));
    expect(view.steps[0]).toMatchObject({ state: 'paused', result: { subtype: 'error_max_budget_usd' } });
    await queueOf(await call(service, 'PATCH', `/api/ideas/${idea.id}/queue`, { maxBudgetUsd: 5 }));
    const ended = await untilEnded(service, idea.id, started.id);
    client.close();
    expect(ended).toMatchObject({
      state: 'completed',
      steps: [{ state: 'completed', result: { result: 'Went on.' } }],
    });
    const runs = (await historyOf(service, idea.id)).flatMap((event) =>
      event.type === 'run:ended' && event.result !== undefined ? [event.result.sessionId] : [],
    );
    expect(startedMessages(await historyOf(service, idea.id))).toEqual(['Build.', CONTINUE_MESSAGE]);
    expect(runs).toHaveLength(2);
    expect(new Set(runs).size).toBe(1);
  });
});
