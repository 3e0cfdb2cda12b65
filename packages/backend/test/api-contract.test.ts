import {
  API,
  ApiErrorBodySchema,
  apiPath,
  openApiDocument,
  statusForCode,
  type ApiRoute,
  type ApiRouteName,
} from '@catalyst/protocol';
import { text, waitUntil } from '@catalyst/testkit';
import { describe, expect, it } from 'vitest';
import { useServiceFixture } from './service-harness.ts';

// Every route of the API contract (protocol api-contract.ts), one request each against a whole Catalyst over the
// test kit's VM: the answer is the route's success with its declared shape, or one of its declared errors. A route
// the server does not bind, or a handler that answers another shape, fails here.

const fixture = useServiceFixture();

interface Request {
  params?: Record<string, string | number>;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
}

describe('the API contract, route by route, against a running Catalyst', () => {
  it('answers each route with its declared shape, or one of its declared errors', async () => {
    const idea = await fixture.service.createIdea('Contract');
    const id = idea.id;
    fixture.model.enqueue(text('Hello from the contract.'));
    const started = await fixture.service.api(apiPath(API.startRun, { params: { id } }), {
      method: 'POST',
      body: JSON.stringify({ mode: 'chat', message: 'Hello?' }),
    });
    const { run } = API.startRun.response.parse(await started.json());
    const ended = await fixture.service.api(
      apiPath(API.getRun, { params: { runId: run.id }, query: { waitMs: 60_000 } }),
    );
    expect(API.getRun.response.parse(await ended.json()).run.state).toBe('completed');
    // The idea's view names its newest event: a client subscribes from there instead of replaying the history.
    const events = await fixture.service.api(apiPath(API.events, { params: { id } }));
    const newest = API.events.response.parse(await events.json()).events.at(-1)?.seq;
    const view = await fixture.service.api(apiPath(API.getIdea, { params: { id } }));
    expect(API.getIdea.response.parse(await view.json()).idea.lastSeq).toBe(newest);

    const missingRun = `run-${id.slice('idea-'.length)}-00000000-0000-4000-8000-000000000000`;
    const missingAutopilot = `ap-${id.slice('idea-'.length)}-00000000-0000-4000-8000-000000000000`;
    const requests: Record<ApiRouteName, Request> = {
      health: {},
      openapi: {},
      hosts: {},
      // A host added as user@host:port (no alias to look up), changed, checked (it cannot be reached), removed.
      addHost: { body: { name: 'added', target: 'nobody@127.0.0.1:1' } },
      getHost: { params: { name: 'added' } },
      updateHost: { params: { name: 'added' }, body: { ideasRoot: '~/elsewhere' } },
      checkHost: { params: { name: 'added' } },
      trustHostKey: { params: { name: 'added' }, body: { fingerprint: 'SHA256:not-a-fingerprint' } },
      deleteHost: { params: { name: 'added' } },
      sshAliases: {},
      listSessions: {},
      endSession: { params: { id: 'session-0000000000000000' } },
      logOut: {},
      logIn: { body: { token: fixture.service.catalyst.token } },
      createPairing: {},
      // A real code is redeemed in pairing.test.ts; here, one that never was.
      redeemPairing: { body: { code: 'never-made-0123456789abcdefghijklmnopqrstuvw' } },
      pushKey: {},
      // The fixture's requests carry the token, which has no device: each is refused with its sentence.
      addPushSubscription: {
        body: {
          endpoint: 'https://push.example/abc',
          keys: { p256dh: `B${'A'.repeat(86)}`, auth: 'A'.repeat(22) },
        },
      },
      removePushSubscription: { body: { endpoint: 'https://push.example/abc' } },
      mutePushIdea: { params: { id }, body: { endpoint: 'https://push.example/abc', isMuted: true } },
      listIdeas: {},
      createIdea: { body: { title: 'Another' } },
      getIdea: { params: { id } },
      updateIdea: { params: { id }, body: { description: 'Checked route by route.' } },
      events: { params: { id }, query: { sinceSeq: 0, limit: 5 } },
      startRun: { params: { id }, body: { mode: 'chat', message: 'Again?' } },
      listRuns: { params: { id }, query: { limit: 5 } },
      askAside: { params: { id }, body: { question: 'Why this way?' } },
      listAsides: { params: { id } },
      startAutopilot: { params: { id }, body: { steps: [] } },
      latestAutopilot: { params: { id } },
      // The idea is idle here (startAutopilot waited for it): the message is sent at once, as a queue of one.
      addToQueue: { params: { id }, body: { mode: 'chat', message: 'Queued?' } },
      getQueue: { params: { id } },
      updateQueuedStep: { params: { id, stepId: 'q-missing' }, body: { position: 0 } },
      removeQueuedStep: { params: { id, stepId: 'q-missing' } },
      sendQueuedStepNow: { params: { id, stepId: 'q-missing' } },
      updateQueue: { params: { id }, body: { maxBudgetUsd: 5 } },
      resumeQueue: { params: { id }, body: {} },
      clearQueue: { params: { id } },
      listQuestions: { params: { id } },
      getQuestion: { params: { id, questionId: 'nothing-waits' } },
      chooseOption: { params: { id, questionId: 'nothing-waits' }, body: { option: 0 } },
      decidePermission: { params: { id, requestId: 'nothing-waits' }, body: { decision: 'deny' } },
      getRun: { params: { runId: run.id } },
      cancelRun: { params: { runId: missingRun } },
      getAutopilot: { params: { autopilotId: missingAutopilot } },
      cancelAutopilot: { params: { autopilotId: missingAutopilot } },
      listCheckpoints: { params: { id } },
      checkpointDiff: { params: { id, commit: '0'.repeat(40) } },
      restoreCheckpoint: { params: { id, commit: '0'.repeat(40) } },
      // The idea has no checkpoint (only a chat ran): each review route is refused for the commit or the comment.
      listReviewComments: { params: { id, commit: '0'.repeat(40) } },
      addReviewComment: {
        params: { id, commit: '0'.repeat(40) },
        body: { path: 'a.txt', startLine: 1, body: 'Why?' },
      },
      editReviewComment: {
        params: { id, commit: '0'.repeat(40), comment: 'rc-0000000000000000' },
        body: { body: 'Why not?' },
      },
      deleteReviewComment: { params: { id, commit: '0'.repeat(40), comment: 'rc-0000000000000000' } },
      sendReview: { params: { id, commit: '0'.repeat(40) } },
      listFiles: { params: { id }, query: { path: '' } },
      fileContent: { params: { id }, query: { path: 'missing.txt' } },
      fileHistory: { params: { id }, query: { path: 'missing.txt' } },
      preview: { params: { id } },
      startPreview: { params: { id } },
      stopPreview: { params: { id } },
      previewLog: { params: { id } },
      listeningPorts: { params: { id } },
      previewPortLink: { params: { id, port: 9 } },
      openTerminals: { params: { id } },
      deleteIdea: { params: { id } },
    };
    // The second chat (startRun above), the aside and the queued chat get their replies (plain texts: any may ask
    // first); the deletes go last.
    fixture.model.enqueue(text('Hello again.'), text('Because.'), text('Queued, and answered.'));
    const order = (Object.keys(requests) as ApiRouteName[]).filter((name) => name !== 'deleteIdea');
    const seen: string[] = [];
    for (const name of [...order, 'deleteIdea'] as const) {
      if (name === 'deleteIdea' || name === 'startAutopilot') {
        // Nothing of the idea may be running when it is deleted, or an autopilot refused for a run in progress.
        await waitForIdle(id);
      }
      seen.push(await expectDeclared(name, API[name], requests[name]));
    }
    expect(seen.filter((outcome) => outcome.startsWith('ok')).length).toBeGreaterThan(15);
    expect(new Set(Object.keys(requests))).toEqual(new Set(Object.keys(API)));
  });

  it('answers an idea’s autopilot with null when it never had one, and an unknown idea with IDEA_NOT_FOUND', async () => {
    const idea = await fixture.service.createIdea('Never on autopilot');
    const none = await fixture.service.api(apiPath(API.latestAutopilot, { params: { id: idea.id } }));
    expect(none.status).toBe(200);
    expect(await none.json()).toEqual({ autopilot: null });
    const unknown = await fixture.service.api(
      apiPath(API.latestAutopilot, { params: { id: 'idea-0000000000000000' } }),
    );
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { code: 'IDEA_NOT_FOUND' } });
  });

  it('serves the contract as an OpenAPI 3.1 document', async () => {
    const response = await fixture.service.api('/api/openapi.json');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(JSON.parse(JSON.stringify(openApiDocument())));
  });
});

async function waitForIdle(id: string): Promise<void> {
  await waitUntil(
    async () => {
      const asides = await fixture.service.api(apiPath(API.listAsides, { params: { id } }));
      const listed = API.listAsides.response.parse(await asides.json()).asides;
      return listed.every((aside) => aside.state !== 'asking');
    },
    { timeoutMs: 30_000, what: 'the idea’s asides to end' },
  );
  const path = apiPath(API.listRuns, { params: { id } });
  for (const run of API.listRuns.response.parse(await (await fixture.service.api(path)).json()).runs) {
    if (run.state === 'running') {
      await fixture.service.api(
        apiPath(API.getRun, { params: { runId: run.id }, query: { waitMs: 60_000 } }),
      );
    }
  }
}

/** One request; its answer must be declared by the route. Says what it was (`ok 200` or the error code). */
async function expectDeclared(name: string, route: ApiRoute, request: Request): Promise<string> {
  const init: RequestInit = { method: route.method };
  if (request.body !== undefined) init.body = JSON.stringify(request.body);
  const response = await fixture.service.api(apiPath(route, request), init);
  const text = await response.text();
  const json: unknown = text === '' ? undefined : JSON.parse(text);
  if (response.status === route.status) {
    if (route.response === undefined) expect(text, name).toBe('');
    else expect(route.response.safeParse(json).error, `${name} answered another shape`).toBeUndefined();
    return `ok ${String(response.status)}`;
  }
  const error = ApiErrorBodySchema.safeParse(json);
  expect(error.success, `${name} answered ${String(response.status)}: ${text}`).toBe(true);
  const code = error.data?.error.code ?? 'INTERNAL';
  expect(route.errors, `${name} answered ${code}, which it does not declare`).toContain(code);
  // 404 INVALID_ARGUMENT is also what an unbound route answers: it must not be that.
  expect(text, name).not.toContain('in Catalyst’s API');
  expect(text, name).not.toContain("in Catalyst's API");
  const statuses = [
    statusForCode(code),
    ...(route.otherStatuses ?? []).filter((other) => other.code === code).map((other) => other.status),
  ];
  expect(statuses, `${name} answered ${code} with ${String(response.status)}`).toContain(response.status);
  return code;
}
