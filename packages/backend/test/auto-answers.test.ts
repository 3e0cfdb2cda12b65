import { describe, expect, it } from 'vitest';
import { collectTexts, colorQuestion, stall, text, toolUse, waitUntil } from '@catalyst/testkit';
import { DEFAULT_QA_MODEL } from '../src/runs/core/auto-answer.ts';
import { openIdeaWith, startRun, toolResultsOf } from './question-client.ts';
import { useServiceFixture } from './service-harness.ts';
import { expectOnlyWarmClaudeThenDelete } from './session-test-kit.ts';

// Automatic answers end to end: the answering `claude -p` runs on the same VM and talks to the same scripted
// model, so its reply is enqueued between the main run's replies, in the order the requests arrive.

const fixture = useServiceFixture();

const reply = (label: string) => text(JSON.stringify({ answers: { [colorQuestion.question]: label } }));

const openIdea = (title: string, policy: Record<string, unknown>, on = fixture.service) =>
  openIdeaWith(on, title, policy);

async function totalsOf(ideaId: string): Promise<unknown> {
  return (await fixture.service.api(`/api/ideas/${ideaId}`)).json();
}

describe('questions answered automatically', () => {
  it('questionPolicy auto: the small model answers with an offered label, which reaches Claude', async () => {
    const { idea, client } = await openIdea('Auto answer', { questionPolicy: 'auto' });
    const base = fixture.model.requests.length;
    fixture.model.enqueue(
      toolUse('AskUserQuestion', { questions: [colorQuestion] }),
      reply('Blue'),
      text('Blue it is.'),
    );
    const events = await client.run(idea.id, 'chat', 'I like calm colors. Pick one.');

    const qaRequest = await fixture.model.waitForRequest(base + 1);
    expect(qaRequest.body.model).toBe(DEFAULT_QA_MODEL);
    expect(qaRequest.body.tools ?? []).toEqual([]);
    expect(collectTexts(qaRequest).join('\n')).toContain('I like calm colors. Pick one.');
    const [result] = await toolResultsOf(fixture.model, base + 2);
    expect(result?.content).toContain(`"${colorQuestion.question}"="Blue"`);
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'claude:question_answered', source: 'auto', by: DEFAULT_QA_MODEL }),
    );
    expect(events.at(-1)).toMatchObject({ type: 'run:ended', outcome: 'completed' });
    expect(await totalsOf(idea.id)).toMatchObject({
      idea: {
        meta: { totals: { questionsAsked: 1, questionsAnsweredAutomatically: 1, autoAnswerRetries: 0 } },
      },
    });
    await expectOnlyWarmClaudeThenDelete(fixture, idea.id);
    client.close();
  });

  it('cancelling the run also stops an answering process that is still waiting', async () => {
    const { idea, client } = await openIdea('Cancel auto', { questionPolicy: 'auto' });
    const base = fixture.model.requests.length;
    fixture.model.enqueue(toolUse('AskUserQuestion', { questions: [colorQuestion] }), stall());
    const started = await startRun(client, { ideaId: idea.id, mode: 'chat', message: 'Pick one.' });
    await fixture.model.waitForRequest(base + 1);
    client.send({ type: 'cancel', ideaId: idea.id });
    const events = await client.untilEnded(started);

    expect(events.at(-1)).toMatchObject({ type: 'run:ended', outcome: 'cancelled' });
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'claude:question_closed', reason: 'cancelled' }),
    );
    await waitUntil(async () => (await fixture.runProcesses(idea.id)).length === 0, {
      timeoutMs: 15_000,
      what: 'no claude process left on the VM',
    });
    client.close();
  });
});
