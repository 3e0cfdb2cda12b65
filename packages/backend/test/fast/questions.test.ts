import { describe, expect, it } from 'vitest';
import { colorQuestion, text, toolUse } from '@catalyst/testkit';
import { DISMISSED_MESSAGE, NO_ANSWER_IN_TIME } from '../../src/runs/core/prompt-answers.ts';
import { openIdeaWith, startRun, toolResultsOf, waitForError, waitForQuestion } from '../question-client.ts';
import { type ServiceUnderTest } from '../service-harness.ts';
import { useFastService } from './fast-harness.ts';

// AskUserQuestion on the in-process host (claude-cli-protocol.md §8.3; the real CLI's in ../questions.test.ts):
// claude asks, a person answers over the WebSocket, and the model's next request shows what the model was told.

const fixture = useFastService();

const toppings = {
  question: 'Which toppings do you want?',
  header: 'Toppings',
  options: [
    { label: 'Cheese', description: 'Melted' },
    { label: 'Olives', description: 'Black' },
    { label: 'Basil', description: 'Fresh' },
  ],
  multiSelect: true,
};

const openIdea = (target: ServiceUnderTest, title: string) => openIdeaWith(target, title);

describe('questions answered by a person', () => {
  it('answers two questions at once: a multi-select and free text for "Other"', async () => {
    const { idea, client } = await openIdea(fixture.service, 'Two questions');
    const base = fixture.model.requests.length;
    fixture.model.enqueue(
      toolUse('AskUserQuestion', { questions: [colorQuestion, toppings] }),
      text('Noted.'),
    );
    const started = await startRun(client, { ideaId: idea.id, mode: 'chat', message: 'Ask me.' });
    const question = await waitForQuestion(client, 0);
    const answers = {
      [colorQuestion.question]: 'Green, like moss',
      [toppings.question]: ['Cheese', 'Basil'],
    };
    client.send({ type: 'answer', ideaId: idea.id, questionId: question.questionId, answers });
    await client.untilEnded(started);

    const [result] = await toolResultsOf(fixture.model, base + 1);
    expect(result?.content).toContain(`"${colorQuestion.question}"="Green, like moss"`);
    expect(result?.content).toContain(`"${toppings.question}"="Cheese, Basil"`);
    client.close();
  });

  it('refuses an unknown question id and a second answer with QUESTION_NOT_FOUND', async () => {
    const { idea, client } = await openIdea(fixture.service, 'Refusals');
    fixture.model.enqueue(toolUse('AskUserQuestion', { questions: [colorQuestion] }), text('Red.'));
    const started = await startRun(client, { ideaId: idea.id, mode: 'chat', message: 'Ask.' });
    const question = await waitForQuestion(client, 0);
    const answer = { type: 'answer', ideaId: idea.id, answers: { [colorQuestion.question]: 'Red' } };
    client.send({ ...answer, questionId: 'no-such-question', requestId: 'unknown' });
    expect(await waitForError(client, 'unknown')).toMatchObject({ code: 'QUESTION_NOT_FOUND' });
    client.send({ ...answer, questionId: question.questionId, requestId: 'first' });
    client.send({ ...answer, questionId: question.questionId, requestId: 'second' });
    expect(await waitForError(client, 'second')).toMatchObject({ code: 'QUESTION_NOT_FOUND' });
    const events = await client.untilEnded(started);
    expect(events.filter((e) => e.type === 'claude:question_answered')).toHaveLength(1);
    expect(client.frames.some((f) => f.type === 'error' && f.requestId === 'first')).toBe(false);
    client.close();
  });

  it('sends the pending question to a client that reconnects, whose answer completes the run', async () => {
    const { idea, client } = await openIdea(fixture.service, 'Reconnect');
    fixture.model.enqueue(toolUse('AskUserQuestion', { questions: [colorQuestion] }), text('Red, then.'));
    await startRun(client, { ideaId: idea.id, mode: 'chat', message: 'Ask.' });
    const question = await waitForQuestion(client, 0);
    client.close();

    const again = await fixture.service.connect();
    await again.subscribe(idea.id, question.seq);
    const resent = await waitForQuestion(again, 0);
    expect(resent.questionId).toBe(question.questionId);
    again.send({
      type: 'answer',
      ideaId: idea.id,
      questionId: resent.questionId,
      answers: { [colorQuestion.question]: 'Red' },
    });
    await again.waitFor((f) => f.type === 'run:ended' && f.outcome === 'completed');
    again.close();
  });

  it('tells the model the person dismissed the question', async () => {
    const { idea, client } = await openIdea(fixture.service, 'Dismiss');
    const base = fixture.model.requests.length;
    fixture.model.enqueue(
      toolUse('AskUserQuestion', { questions: [colorQuestion] }),
      text('I will choose myself.'),
    );
    const started = await startRun(client, { ideaId: idea.id, mode: 'chat', message: 'Ask.' });
    const question = await waitForQuestion(client, 0);
    client.send({ type: 'dismiss', ideaId: idea.id, questionId: question.questionId });
    const events = await client.untilEnded(started);

    expect(await toolResultsOf(fixture.model, base + 1)).toEqual([
      { content: DISMISSED_MESSAGE, isError: true },
    ]);
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'claude:question_closed', reason: 'dismissed' }),
    );
    client.close();
  });

  it('does not time out while a question waits longer than CLAUDE_TIMEOUT_MS', async () => {
    // 5 s: the timer runs from the start, and a cold CLI on a busy 2-core machine takes some of that to ask.
    const quick = await fixture.startAnother({ env: { CLAUDE_TIMEOUT_MS: '5000' } });
    const { idea, client } = await openIdea(quick, 'Slow person');
    fixture.model.enqueue(toolUse('AskUserQuestion', { questions: [colorQuestion] }), text('Blue.'));
    const started = await startRun(client, { ideaId: idea.id, mode: 'chat', message: 'Ask.' });
    const question = await waitForQuestion(client, 0);
    // No event marks "the timeout did not fire": waiting past it is the behaviour under test.
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    client.send({
      type: 'answer',
      ideaId: idea.id,
      questionId: question.questionId,
      answers: { [colorQuestion.question]: 'Blue' },
    });
    expect((await client.untilEnded(started)).at(-1)).toMatchObject({
      type: 'run:ended',
      outcome: 'completed',
    });
    client.close();
  });

  it('tells the model to go on when the idea`s answer limit passes', async () => {
    const { idea, client } = await openIdea(fixture.service, 'Answer limit');
    const patched = await fixture.service.api(`/api/ideas/${idea.id}`, {
      method: 'PATCH',
      body: JSON.stringify({ humanAnswerLimitMs: 500 }),
    });
    expect(patched.status).toBe(200);
    const base = fixture.model.requests.length;
    fixture.model.enqueue(
      toolUse('AskUserQuestion', { questions: [colorQuestion] }),
      text('I assumed blue.'),
    );
    const events = await client.run(idea.id, 'chat', 'Ask.');

    expect(events).toContainEqual(
      expect.objectContaining({ type: 'claude:question_closed', reason: 'timed_out' }),
    );
    const [result] = await toolResultsOf(fixture.model, base + 1);
    expect(result).toMatchObject({ isError: false });
    expect(result?.content).toContain(NO_ANSWER_IN_TIME);
    client.close();
  });
});
