import { describe, expect, it } from 'vitest';
import { colorQuestion, text, toolUse } from '@catalyst/testkit';
import { openIdeaWith, startRun, toolResultsOf, waitForQuestion } from './question-client.ts';
import { type ServiceUnderTest, useServiceFixture } from './service-harness.ts';

// AskUserQuestion end to end (claude-cli-protocol.md §8.3): the real CLI over the test kit's sshd asks, a person
// answers over the WebSocket, and the scripted model's next request shows exactly what the model was told.

const fixture = useServiceFixture();

const openIdea = (target: ServiceUnderTest, title: string) => openIdeaWith(target, title);

describe('questions answered by a person', () => {
  it('relays the question, sends exactly the answer to the model, and counts it', async () => {
    const { idea, client } = await openIdea(fixture.service, 'One question');
    const base = fixture.model.requests.length;
    fixture.model.enqueue(toolUse('AskUserQuestion', { questions: [colorQuestion] }), text('Blue it is.'));
    const started = await startRun(client, { ideaId: idea.id, mode: 'chat', message: 'Pick a color.' });
    const question = await waitForQuestion(client, 0);
    expect(question.questions).toEqual([colorQuestion]);

    const listed = await (await fixture.service.api(`/api/ideas/${idea.id}/questions`)).json();
    expect(listed).toMatchObject({ questions: [{ questionId: question.questionId }] });
    const one = await fixture.service.api(`/api/ideas/${idea.id}/questions/${question.questionId}`);
    expect(one.status).toBe(200);

    client.send({
      type: 'answer',
      ideaId: idea.id,
      questionId: question.questionId,
      answers: { [colorQuestion.question]: 'Blue' },
    });
    const events = await client.untilEnded(started);

    const results = await toolResultsOf(fixture.model, base + 1);
    expect(results).toHaveLength(1);
    expect(results[0]?.content).toContain(`"${colorQuestion.question}"="Blue"`);
    expect(results[0]?.isError).toBe(false);
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'claude:question_answered',
        answers: { [colorQuestion.question]: 'Blue' },
        source: 'human',
      }),
    );
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'claude:question_closed', reason: 'answered' }),
    );
    expect(events.at(-1)).toMatchObject({ type: 'run:ended', outcome: 'completed' });
    const meta = await (await fixture.service.api(`/api/ideas/${idea.id}`)).json();
    expect(meta).toMatchObject({
      idea: { meta: { totals: { questionsAsked: 1, questionsAnsweredByPerson: 1 } } },
    });
    expect(await (await fixture.service.api(`/api/ideas/${idea.id}/questions`)).json()).toEqual({
      questions: [],
    });
    client.close();
  });

  it('cancels a run while a question waits: the question is cancelled and nothing is left on the VM', async () => {
    const { idea, client } = await openIdea(fixture.service, 'Cancel a question');
    fixture.model.enqueue(toolUse('AskUserQuestion', { questions: [colorQuestion] }));
    const started = await startRun(client, { ideaId: idea.id, mode: 'chat', message: 'Ask.' });
    await waitForQuestion(client, 0);
    client.send({ type: 'cancel', ideaId: idea.id });
    const events = await client.untilEnded(started);

    expect(events).toContainEqual(
      expect.objectContaining({ type: 'claude:question_closed', reason: 'cancelled' }),
    );
    expect(events.at(-1)).toMatchObject({ type: 'run:ended', outcome: 'cancelled' });
    expect(await fixture.runProcesses(idea.id)).toEqual([]);
    client.close();
  });
});
