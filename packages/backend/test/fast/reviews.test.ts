import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  API,
  ApiErrorBodySchema,
  apiPath,
  ReviewsFileSchema,
  type ApiBody,
  type RelayEvent,
  type ReviewCommentView,
} from '@catalyst/protocol';
import { text, toolUse, type RecordedRequest } from '@catalyst/testkit';
import { type ServiceUnderTest } from '../service-harness.ts';
import { useFastService } from './fast-harness.ts';

// Review comments on a checkpoint's diff (issue 30), on the in-process host: two comments on a
// two-file build become one build message that reaches the model quoting both; they are kept in the idea's folder,
// marked sent; a later build that changes one commented line makes that comment stale (and one whose block only
// moved is not), and a stale comment says so when it is sent.

const fixture = useFastService();

function bash(command: string) {
  return toolUse('Bash', { command, description: 'Change files' });
}

function buildCheckpoint(events: readonly RelayEvent[]): string {
  const found = events.find(
    (event): event is Extract<RelayEvent, { type: 'checkpoint:created' }> =>
      event.type === 'checkpoint:created' && event.kind === 'build',
  );
  if (found === undefined) throw new Error('the build made no checkpoint');
  return found.commit;
}

/** The newest user message of a model request, as text. */
function lastUserText(request: RecordedRequest): string {
  const last = request.body.messages.filter((message) => message.role === 'user').at(-1);
  if (last === undefined) return '';
  if (typeof last.content === 'string') return last.content;
  return last.content.flatMap((block) => (block.text === undefined ? [] : [block.text])).join('\n');
}

function reviews(service: ServiceUnderTest, id: string, commit: string) {
  return {
    async list(): Promise<ReviewCommentView[]> {
      const response = await service.api(apiPath(API.listReviewComments, { params: { id, commit } }));
      expect(response.status).toBe(200);
      return API.listReviewComments.response.parse(await response.json()).comments;
    },
    add(body: ApiBody<typeof API.addReviewComment>): Promise<Response> {
      return service.api(apiPath(API.addReviewComment, { params: { id, commit } }), {
        method: 'POST',
        body: JSON.stringify(body),
      });
    },
    async send() {
      const response = await service.api(apiPath(API.sendReview, { params: { id, commit } }), {
        method: 'POST',
      });
      expect(response.status).toBe(200);
      return API.sendReview.response.parse(await response.json());
    },
  };
}

describe('review comments on a checkpoint’s diff', () => {
  it('sends two comments on a two-file build as one build message, and marks one stale after a later build', async () => {
    const { service, model } = fixture;
    const idea = await service.createIdea('Reviewed');
    const client = await service.connect();
    await client.subscribe(idea.id);

    model.enqueue(
      bash(
        "mkdir -p src && printf 'one\\ntwo\\nthree\\n' > a.txt && " +
          "printf 'let b = 1;\\nlet c = 2;\\nexport { b, c };\\n' > src/b.ts",
      ),
      text('Wrote two files.'),
    );
    const commit = buildCheckpoint(await client.run(idea.id, 'build', 'Write two files'));
    const review = reviews(service, idea.id, commit);

    expect((await review.add({ path: 'a.txt', startLine: 2, body: 'Make it TWO.' })).status).toBe(201);
    const ranged = await review.add({
      path: 'src/b.ts',
      side: 'new',
      startLine: 1,
      endLine: 2,
      body: 'Use const.',
    });
    expect(ranged.status).toBe(201);
    // Lines the file does not have at the checkpoint are refused, by the file's own count.
    const outside = await review.add({ path: 'a.txt', startLine: 3, endLine: 4, body: 'Past the end.' });
    expect(outside.status).toBe(400);
    expect(ApiErrorBodySchema.parse(await outside.json()).error.message).toContain('a.txt has 3 lines');
    // Each comment made tells the idea's subscribers, so a page in another tab asks for the review again; a
    // refused one tells nothing.
    await client.waitFor(
      (frame) =>
        frame.type === 'review:changed' &&
        client.events().filter((event) => event.type === 'review:changed').length === 2,
    );
    expect(client.events().filter((event) => event.type === 'review:changed')).toMatchObject([
      { commit },
      { commit },
    ]);

    const listed = await review.list();
    expect(
      listed.map(({ path, startLine, endLine, lines, isStale }) => ({
        path,
        startLine,
        endLine,
        lines,
        isStale,
      })),
    ).toEqual([
      { path: 'a.txt', startLine: 2, endLine: 2, lines: ['two'], isStale: false },
      { path: 'src/b.ts', startLine: 1, endLine: 2, lines: ['let b = 1;', 'let c = 2;'], isStale: false },
    ]);

    // Send review: one build run, whose message reaches the model quoting both comments.
    const requestsBefore = model.requests.length;
    model.enqueue(text('Addressed both.'));
    const sent = await review.send();
    expect(sent.runId).toBeDefined();
    // Worded for a person, who reads it in the transcript: the build by its own words, not its run id.
    expect(sent.message).toMatch(
      /^Review of the changes made by the build “Write two files” \(checkpoint [0-9a-f]{12}\)/,
    );
    expect(sent.message).not.toContain('run-');
    expect(sent.message).toContain('1. a.txt, line 2:\n```\ntwo\n```\nMake it TWO.');
    expect(sent.message).toContain('2. src/b.ts, lines 1-2:\n```\nlet b = 1;\nlet c = 2;\n```\nUse const.');
    const started = await client.waitFor(
      (frame) => frame.type === 'run:started' && frame.runId === sent.runId,
    );
    expect(started).toMatchObject({ mode: 'build' });
    await client.untilEnded(started);
    // The send told the pages too (the comments are marked sent).
    expect(client.events().filter((event) => event.type === 'review:changed')).toHaveLength(3);
    const received = model.requests.slice(requestsBefore).map(lastUserText);
    expect(received.filter((text) => text.includes(sent.message))).toHaveLength(1);

    // Kept with the idea, on its host, marked sent; a send with nothing left to send is refused.
    const kept = ReviewsFileSchema.parse(
      JSON.parse(await readFile(join(service.ideasRoot, idea.id, 'reviews.json'), 'utf8')),
    );
    expect(kept.comments.map((comment) => comment.sentRunId)).toEqual([sent.runId, sent.runId]);
    expect((await stat(join(service.ideasRoot, idea.id, 'reviews.json'))).mode & 0o777).toBe(0o600);
    const again = await service.api(apiPath(API.sendReview, { params: { id: idea.id, commit } }), {
      method: 'POST',
    });
    expect(again.status).toBe(400);

    // A later build changes the commented line of a.txt, and moves b.ts's commented lines down by one.
    model.enqueue(
      bash(
        "printf 'one\\nTWO\\nthree\\n' > a.txt && printf '// header\\nlet b = 1;\\nlet c = 2;\\nexport { b, c };\\n' > src/b.ts",
      ),
      text('Changed them.'),
    );
    const later = buildCheckpoint(await client.run(idea.id, 'build', 'Change them'));
    const afterwards = await review.list();
    expect(
      afterwards.map(({ path, isStale, movedTo, sentAt }) => ({
        path,
        isStale,
        movedTo,
        isSent: sentAt !== undefined,
      })),
    ).toEqual([
      { path: 'a.txt', isStale: true, movedTo: undefined, isSent: true },
      { path: 'src/b.ts', isStale: false, movedTo: 2, isSent: true },
    ]);

    // On the later build's diff, a line it deleted is commented on as it was before it: never stale.
    const deleted = await reviews(service, idea.id, later).add({
      path: 'a.txt',
      side: 'old',
      startLine: 2,
      body: 'Keep it lower-case.',
    });
    expect(deleted.status).toBe(201);
    expect(API.addReviewComment.response.parse(await deleted.json()).comment).toMatchObject({
      side: 'old',
      lines: ['two'],
      isStale: false,
    });

    // A comment on the first build's lines made now is stale at once, and its message says so.
    expect((await review.add({ path: 'a.txt', startLine: 1, endLine: 2, body: 'Join them.' })).status).toBe(
      201,
    );
    model.enqueue(text('Joined.'));
    const staleSent = await review.send();
    expect(staleSent.comments).toHaveLength(1);
    expect(staleSent.message).toContain(
      '1. a.txt, lines 1-2 (these lines have changed since):\n```\none\ntwo\n```',
    );
    await client.untilEnded(
      await client.waitFor((frame) => frame.type === 'run:started' && frame.runId === staleSent.runId),
    );
    client.close();
  });
});
