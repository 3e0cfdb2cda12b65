import { describe, expect, it } from 'vitest';
import { collectTexts, colorQuestion, stall, text, toolUse, waitUntil } from '@catalyst/testkit';
import { DEFAULT_QA_MODEL } from '../../src/runs/core/auto-answer.ts';
import { openIdeaWith, startRun, toolResultsOf, waitForQuestion } from '../question-client.ts';
import { claudesOf, expectNothingLeft } from './fast-kit.ts';
import { useFastService } from './fast-harness.ts';

// Automatic answers on the in-process host (the real CLI's in ../auto-answers.test.ts): the answering `claude -p` runs
// on the same VM and talks to the same scripted model, so its reply is enqueued between the main run's replies, in the
// order the requests arrive.

const fixture = useFastService();

const reply = (label: string) => text(JSON.stringify({ answers: { [colorQuestion.question]: label } }));

const openIdea = (title: string, policy: Record<string, unknown>, on = fixture.service) =>
  openIdeaWith(on, title, policy);

async function totalsOf(ideaId: string): Promise<unknown> {
  return (await fixture.service.api(`/api/ideas/${ideaId}`)).json();
}

describe('questions answered automatically', () => {
  it('retries once when the reply is not an offered label', async () => {
    const { idea, client } = await openIdea('Retry', { questionPolicy: 'auto' });
    const base = fixture.model.requests.length;
    fixture.model.enqueue(
      toolUse('AskUserQuestion', { questions: [colorQuestion] }),
      text('I think blue would be nice.'),
      reply('Red'),
      text('Red, then.'),
    );
    await client.run(idea.id, 'chat', 'Pick one.');

    expect(collectTexts(await fixture.model.waitForRequest(base + 2)).join('\n')).toContain(
      'I think blue would be nice.',
    );
    const [result] = await toolResultsOf(fixture.model, base + 3);
    expect(result?.content).toContain(`"${colorQuestion.question}"="Red"`);
    expect(await totalsOf(idea.id)).toMatchObject({ idea: { meta: { totals: { autoAnswerRetries: 1 } } } });
    client.close();
  });

  it('ends the run failed, saying why, when no usable answer comes (policy auto)', async () => {
    const { idea, client } = await openIdea('Unusable', { questionPolicy: 'auto' });
    fixture.model.enqueue(
      toolUse('AskUserQuestion', { questions: [colorQuestion] }),
      text('Purple.'),
      text('Green!'),
    );
    const events = await client.run(idea.id, 'chat', 'Pick one.');

    expect(events.at(-1)).toMatchObject({
      type: 'run:ended',
      outcome: 'failed',
      error: { code: 'AUTO_ANSWER_FAILED', message: expect.stringContaining('Green!') as unknown },
    });
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'claude:question_closed', reason: 'cancelled' }),
    );
    client.close();
  });

  it('human_then_auto: the model answers once the delay passes without a person', async () => {
    const { idea, client } = await openIdea('Then auto', {
      questionPolicy: 'human_then_auto',
      autoAnswerDelayMs: 300,
    });
    const base = fixture.model.requests.length;
    fixture.model.enqueue(
      toolUse('AskUserQuestion', { questions: [colorQuestion] }),
      reply('Red'),
      text('Red.'),
    );
    const events = await client.run(idea.id, 'chat', 'Pick one.');

    const question = events.find((e) => e.type === 'claude:question');
    const answered = events.find((e) => e.type === 'claude:question_answered');
    expect(answered).toMatchObject({ source: 'auto' });
    expect(Date.parse(answered?.ts ?? '') - Date.parse(question?.ts ?? '')).toBeGreaterThanOrEqual(300);
    const [result] = await toolResultsOf(fixture.model, base + 2);
    expect(result?.content).toContain(`"${colorQuestion.question}"="Red"`);
    client.close();
  });

  it('a question asked again is answered with what happened since: the first answer, the tool calls and results', async () => {
    const { idea, client } = await openIdea('Asked again', { questionPolicy: 'auto' });
    const base = fixture.model.requests.length;
    fixture.model.enqueue(
      toolUse('AskUserQuestion', { questions: [colorQuestion] }),
      reply('Red'),
      toolUse('Bash', { command: 'echo red paint is sold out', description: 'Check the paint' }),
      toolUse('AskUserQuestion', { questions: [colorQuestion] }),
      reply('Blue'),
      text('Blue, then.'),
    );
    const events = await client.run(idea.id, 'build', 'Paint the fence.');

    const first = collectTexts(await fixture.model.waitForRequest(base + 1)).join('\n');
    expect(first).not.toContain('yet it asks again');
    const again = collectTexts(await fixture.model.waitForRequest(base + 4)).join('\n');
    for (const part of [
      'Person: Paint the fence.',
      `Answered automatically (${DEFAULT_QA_MODEL}): "${colorQuestion.question}" → "Red"`,
      'Claude used Bash: {"command":"echo red paint is sold out"',
      'Bash returned: ',
      'red paint is sold out',
      `answered automatically with {"${colorQuestion.question}":"Red"}, yet it asks again`,
    ]) {
      expect(again).toContain(part);
    }
    expect(events.at(-1)).toMatchObject({ type: 'run:ended', outcome: 'completed' });
    client.close();
  });

  it('a per-idea qaModel (PATCH) answers instead of CATALYST_QA_MODEL, and null gives the service’s back', async () => {
    const { idea, client } = await openIdea('Own model', {
      questionPolicy: 'auto',
      qaModel: 'claude-sonnet-4-5',
    });
    const base = fixture.model.requests.length;
    fixture.model.enqueue(
      toolUse('AskUserQuestion', { questions: [colorQuestion] }),
      reply('Red'),
      text('Red.'),
    );
    const events = await client.run(idea.id, 'chat', 'Pick one.');

    expect((await fixture.model.waitForRequest(base + 1)).body.model).toBe('claude-sonnet-4-5');
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'claude:question_answered', by: 'claude-sonnet-4-5' }),
    );
    const reset = await fixture.service.api(`/api/ideas/${idea.id}`, {
      method: 'PATCH',
      body: JSON.stringify({ qaModel: null }),
    });
    expect(await reset.json()).not.toHaveProperty('idea.meta.qaModel');
    const refused = await fixture.service.api(`/api/ideas/${idea.id}`, {
      method: 'PATCH',
      body: JSON.stringify({ qaModel: 'haiku; rm -rf ~' }),
    });
    expect(refused.status).toBe(400);
    client.close();
  });

  describe('an answering model that stalls past the per-attempt limit (CATALYST_QA_TIMEOUT_MS)', () => {
    // Another Catalyst on the same VM and model, with a 3 s limit (room for the answering claude to start over SSH
    // and reach the model, where it stalls); stopped after each test.
    const startStalling = () => fixture.startAnother({ env: { CATALYST_QA_TIMEOUT_MS: '3000' } });

    it('policy auto: its process is stopped and the run fails, saying why', async () => {
      const service = await startStalling();
      const { idea, client } = await openIdea('Stalled auto', { questionPolicy: 'auto' }, service);
      const base = fixture.model.requests.length;
      fixture.model.enqueue(toolUse('AskUserQuestion', { questions: [colorQuestion] }), stall());
      const events = await client.run(idea.id, 'chat', 'Pick one.');

      expect((await fixture.model.waitForRequest(base + 1)).body.model).toBe(DEFAULT_QA_MODEL);
      expect(events.at(-1)).toMatchObject({
        type: 'run:ended',
        outcome: 'failed',
        error: {
          code: 'AUTO_ANSWER_FAILED',
          message: expect.stringContaining('gave no answer within 3 s') as unknown,
        },
      });
      await expectNothingLeft(fixture, idea.id, service);
      client.close();
    });

    it('human_then_auto: its process is stopped and the question stays with the person, who answers it', async () => {
      const service = await startStalling();
      const { idea, client } = await openIdea(
        'Stalled then person',
        { questionPolicy: 'human_then_auto', autoAnswerDelayMs: 0 },
        service,
      );
      const base = fixture.model.requests.length;
      fixture.model.enqueue(
        toolUse('AskUserQuestion', { questions: [colorQuestion] }),
        stall(),
        text('Blue.'),
      );
      const started = await startRun(client, { ideaId: idea.id, mode: 'chat', message: 'Pick one.' });
      const question = await waitForQuestion(client, 0);
      await fixture.model.waitForRequest(base + 1);
      // The answering process is stopped at its limit; the run's own claude still waits for the answer.
      await waitUntil(async () => (await claudesOf(fixture, idea.id, service)) === 1, {
        timeoutMs: 15_000,
        what: 'the stalled answering process stopped',
      });
      expect(client.events().some((event) => event.type === 'claude:question_closed')).toBe(false);
      const answers = { [colorQuestion.question]: 'Blue' };
      client.send({ type: 'answer', ideaId: idea.id, questionId: question.questionId, answers });
      const events = await client.untilEnded(started);

      expect(events).toContainEqual(
        expect.objectContaining({ type: 'claude:question_answered', source: 'human', answers }),
      );
      expect(events.at(-1)).toMatchObject({ type: 'run:ended', outcome: 'completed' });
      client.close();
    });
  });
});
