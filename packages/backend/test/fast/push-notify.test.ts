import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { API, apiPath, type ClientFrame } from '@catalyst/protocol';
import {
  colorQuestion,
  startMockPushService,
  text,
  toolUse,
  type MockPushService,
  type PushSubscriptionJson,
  type ReceivedPush,
} from '@catalyst/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { openClient, type TestClient } from '../server-ws-client.ts';
import { type ServiceUnderTest } from '../service-harness.ts';
import { useFastService } from './fast-harness.ts';

// Web Push end to end (issue 29): a whole Catalyst on the in-process host, and the test kit's push service, which
// checks each push's VAPID signature and decrypts it with the device's own keys. What deserves a person's attention
// reaches every subscribed device but one that shows the idea or muted it; the push says nothing of the conversation
// but a question's option labels; an action answers as the page would.

const fixture = useFastService();
let pushService: MockPushService;

beforeAll(async () => {
  pushService = await startMockPushService();
});
afterAll(async () => {
  await pushService.close();
});

interface Device {
  readonly cookie: string;
  readonly key: string;
  readonly subscription: PushSubscriptionJson;
}

/** A browser logged in with the token, its device subscribed as the page subscribes it. */
async function subscribedDevice(catalyst: ServiceUnderTest): Promise<Device> {
  const login = await fetch(`${catalyst.catalyst.url}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: catalyst.catalyst.url },
    body: JSON.stringify({ token: catalyst.catalyst.token }),
  });
  expect(login.status).toBe(200);
  const { key } = z.object({ key: z.string() }).parse(await login.json());
  const cookie = (login.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
  const browser = { cookie, key };
  const { publicKey } = API.pushKey.response.parse(
    await (await asBrowser(catalyst, browser, API.pushKey.path)).json(),
  );
  const subscription = pushService.createSubscription({ applicationServerKey: publicKey });
  const added = await asBrowser(catalyst, browser, API.addPushSubscription.path, subscription);
  expect(added.status).toBe(201);
  return { ...browser, subscription };
}

function asBrowser(
  catalyst: ServiceUnderTest,
  browser: { cookie: string; key: string },
  path: string,
  body?: unknown,
): Promise<Response> {
  return fetch(`${catalyst.catalyst.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      cookie: browser.cookie,
      'x-catalyst-key': browser.key,
      origin: catalyst.catalyst.url,
      'content-type': 'application/json',
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/** The device's tab, on the WebSocket as the page opens it. */
function openTab(catalyst: ServiceUnderTest, device: Device): Promise<TestClient> {
  return openClient(`${catalyst.catalyst.url.replace('http', 'ws')}/ws`, {
    headers: { cookie: device.cookie, 'x-catalyst-key': device.key, origin: catalyst.catalyst.url },
  });
}

/** Starts a chat and resolves once it has ended. */
async function chat(catalyst: ServiceUnderTest, ideaId: string, message: string): Promise<void> {
  const started = await catalyst.api(apiPath(API.startRun, { params: { id: ideaId } }), {
    method: 'POST',
    body: JSON.stringify({ mode: 'chat', message }),
  });
  const { run } = API.startRun.response.parse(await started.json());
  await catalyst.api(apiPath(API.getRun, { params: { runId: run.id }, query: { waitMs: 60_000 } }));
}

const pushesTo = (device: Device): ReceivedPush[] =>
  pushService.messages.filter((message) => message.endpoint === device.subscription.endpoint);

describe('Web Push', () => {
  it('pushes a waiting question to each device but the one showing the idea, says nothing of it but its options, and an action answers it', async () => {
    const catalyst = await fixture.startAnother({ push: { allowLoopbackHttp: true } });
    const phone = await subscribedDevice(catalyst);
    const laptop = await subscribedDevice(catalyst);
    const idea = await catalyst.createIdea('Paint the shed');
    // The laptop shows the idea in a visible tab.
    const tab = await openTab(catalyst, laptop);
    const viewing: ClientFrame = { type: 'viewing', ideaId: idea.id };
    tab.send(viewing);

    fixture.model.enqueue(toolUse('AskUserQuestion', { questions: [colorQuestion] }), text('Blue it is.'));
    const started = await catalyst.api(apiPath(API.startRun, { params: { id: idea.id } }), {
      method: 'POST',
      body: JSON.stringify({ mode: 'chat', message: 'Pick a color for me.' }),
    });
    const { run } = API.startRun.response.parse(await started.json());
    const asked = await pushService.nextMessage();
    expect(asked.endpoint).toBe(phone.subscription.endpoint);
    expect(asked.headers.urgency).toBe('high');
    const questions = API.listQuestions.response.parse(
      await (await catalyst.api(apiPath(API.listQuestions, { params: { id: idea.id } }))).json(),
    ).questions;
    const questionId = questions[0]?.questionId ?? '';
    expect(asked.payload).toEqual({
      title: 'Question waiting',
      body: 'Paint the shed: Claude is waiting for your answer.',
      url: `/ideas/${idea.id}#seq-${String(questions[0]?.seq)}`,
      tag: `idea-${idea.id}`,
      actions: [
        { action: `choose:${questionId}:0`, title: 'Red' },
        { action: `choose:${questionId}:1`, title: 'Blue' },
      ],
    });
    // Neither the question nor what the person wrote is in a push: only the options' labels.
    expect(JSON.stringify(asked.payload)).not.toMatch(/Which color|Warm color|Pick a color/);

    // The notification's second action, with the phone's session, as a click on "Blue" in the page.
    const chosen = await asBrowser(
      catalyst,
      phone,
      apiPath(API.chooseOption, { params: { id: idea.id, questionId } }),
      { option: 1 },
    );
    expect(chosen.status).toBe(204);
    await catalyst.api(apiPath(API.getRun, { params: { runId: run.id }, query: { waitMs: 60_000 } }));
    const events = API.events.response.parse(
      await (await catalyst.api(apiPath(API.events, { params: { id: idea.id } }))).json(),
    ).events;
    expect(events.find((event) => event.type === 'claude:question_answered')).toMatchObject({
      answers: { [colorQuestion.question]: 'Blue' },
    });
    const done = await pushService.nextMessage();
    expect(done.endpoint).toBe(phone.subscription.endpoint);
    expect(done.payload).toMatchObject({ title: 'Run completed', body: 'Paint the shed' });

    // The laptop stops showing it: the next run's end reaches both. The laptop's first push is that one, so the
    // question and the first run's end never went to it.
    tab.send({ type: 'viewing', ideaId: null });
    fixture.model.enqueue(text('Still blue.'));
    await chat(catalyst, idea.id, 'Sure?');
    await pushService.waitForMessages(4);
    expect(pushesTo(laptop).map((message) => message.payload)).toEqual([
      expect.objectContaining({ title: 'Run completed', body: 'Paint the shed' }),
    ]);
    tab.socket.close();
  });

  it('forgets at start the devices of sessions that ended while it was stopped (a new token signs every browser out)', async () => {
    const first = await fixture.startAnother({ push: { allowLoopbackHttp: true } });
    const phone = await subscribedDevice(first);
    const stored = () =>
      readFile(join(first.configDir.path, 'push-subscriptions.json'), 'utf8').then(
        (text) => text.includes(phone.subscription.endpoint),
        () => false,
      );
    expect(await stored()).toBe(true);
    await first.stop();
    // The same config dir with another token: no session of the old one is signed in any more.
    await fixture.startAnother({
      push: { allowLoopbackHttp: true },
      env: { CATALYST_TOKEN: randomBytes(32).toString('hex') },
      reuse: { configDir: first.configDir, ideasRoot: first.ideasRoot },
    });
    expect(await stored(), 'the old session’s device is forgotten').toBe(false);
  });

  it('sends nothing about a muted idea to that device, nor to a browser that signed out, and forgets a gone subscription', async () => {
    const catalyst = await fixture.startAnother({ push: { allowLoopbackHttp: true } });
    const phone = await subscribedDevice(catalyst);
    const old = await subscribedDevice(catalyst);
    const before = pushService.messages.length;
    const muted = await catalyst.createIdea('Muted on the phone');
    const loud = await catalyst.createIdea('Not muted');
    const mute = await asBrowser(catalyst, phone, apiPath(API.mutePushIdea, { params: { id: muted.id } }), {
      endpoint: phone.subscription.endpoint,
      isMuted: true,
    });
    expect(API.mutePushIdea.response.parse(await mute.json()).subscription.mutedIdeas).toEqual([muted.id]);
    // The old browser signs out: its subscription goes with its session.
    expect((await asBrowser(catalyst, old, API.logOut.path, {})).status).toBe(204);

    fixture.model.enqueue(text('Quietly done.'));
    await chat(catalyst, muted.id, 'Hello?');
    fixture.model.enqueue(text('Loudly done.'));
    await chat(catalyst, loud.id, 'Hello?');
    // The phone's first push since is the second idea's: nothing came of the muted one, nothing went to `old`.
    const [first] = await pushService.waitForMessages(before + 1).then((all) => all.slice(before));
    expect(first?.endpoint).toBe(phone.subscription.endpoint);
    expect(first?.payload).toMatchObject({ title: 'Run completed', body: 'Not muted' });

    // The push service says the phone's subscription is gone (410): Catalyst forgets it.
    pushService.answer(phone.subscription.endpoint, { status: 410 });
    fixture.model.enqueue(text('Once more.'));
    await chat(catalyst, loud.id, 'Again?');
    // Nothing tells of the removal but the store: the phone's subscription is no longer there to mute.
    const muteAgain = () =>
      asBrowser(catalyst, phone, apiPath(API.mutePushIdea, { params: { id: loud.id } }), {
        endpoint: phone.subscription.endpoint,
        isMuted: true,
      }).then((response) => response.status);
    await expect.poll(muteAgain, { timeout: 20_000 }).toBe(400);
    expect(pushService.requests(phone.subscription.endpoint).at(-1)?.status).toBe(410);
  });
});
