/**
 * How soon a push reaches the devices (issue 29): 20 devices subscribed (each its own browser session), 200 questions
 * across 20 ideas (10 turns each, one after the other), each answered from a notification's action; for every
 * delivery, the time from the moment a WebSocket client sees the `claude:question` event to the moment the test kit's
 * push service (on loopback, checking the VAPID signature and decrypting like a browser's push service) has that
 * device's push. Reported: p50 and p99 over the 4,000 deliveries, and p99 of the last device's per question. The
 * leg measured is Catalyst's own (the notifier, the encryption, the POSTs); a real push service adds its delivery.
 * Human-readable lines first; the last line is one JSON object:
 * {"devices","questions","deliveryP50Ms","deliveryP99Ms","allDevicesP99Ms"}. Goal: p99 < 1 s. Asserts nothing.
 * Needs root, as the test kit does. Run it with scripts/bench-push; it takes a few minutes.
 */
import { percentile } from '../relay/lines.ts';
import { BenchCatalyst, say, withSite } from '../shared/bench-catalyst.ts';
import { colorQuestion, startMockPushService, text, toolUse } from '../../packages/testkit/src/index.ts';
import { API, apiPath } from '../../packages/protocol/src/index.ts';

const DEVICES = 20;
const IDEAS = 20;
const TURNS = 10;

function p(values: readonly number[], at: number): number {
  return Math.round(percentile(values, at) * 10) / 10;
}

await withSite(async (site) => {
  const pushService = await startMockPushService();
  const bench = await BenchCatalyst.start(site, {}, { push: { allowLoopbackHttp: true } });
  try {
    const browsers: Record<string, string>[] = [];
    for (let device = 0; device < DEVICES; device += 1) {
      const browser = await bench.logInAsBrowser();
      const { publicKey } = API.pushKey.response.parse(
        await (await bench.asBrowser(browser, API.pushKey.path)).json(),
      );
      const subscription = pushService.createSubscription({ applicationServerKey: publicKey });
      const added = await bench.asBrowser(browser, API.addPushSubscription.path, subscription);
      if (added.status !== 201) throw new Error(`subscribe: ${String(added.status)}`);
      browsers.push(browser);
    }
    const [answering] = browsers;
    if (answering === undefined) throw new Error('no device');
    say(`${String(DEVICES)} devices subscribed`);
    const deliveries: number[] = [];
    const allDevices: number[] = [];
    let received = 0;
    for (let idea = 0; idea < IDEAS; idea += 1) {
      const ideaId = await bench.createIdea(`Pushed ${String(idea)}`);
      await bench.subscribe(ideaId);
      for (let turn = 0; turn < TURNS; turn += 1) {
        site.model.enqueue(toolUse('AskUserQuestion', { questions: [colorQuestion] }), text('Blue it is.'));
        const asked = bench.next((frame) => frame.type === 'claude:question' && frame.ideaId === ideaId);
        const runEnded = bench.next((frame) => frame.type === 'run:ended' && frame.ideaId === ideaId);
        bench.send({ type: 'chat', ideaId, message: 'Pick a color.' });
        const frame = await asked;
        const seenAt = Date.now();
        const pushes = await pushService.waitForMessages(received + DEVICES, { timeoutMs: 30_000 });
        for (const push of pushes.slice(received)) deliveries.push(push.receivedAt - seenAt);
        allDevices.push(Math.max(...pushes.slice(received).map((push) => push.receivedAt - seenAt)));
        received += DEVICES;
        if (frame.type !== 'claude:question') throw new Error('not a question');
        const chosen = await bench.asBrowser(
          answering,
          apiPath(API.chooseOption, { params: { id: ideaId, questionId: frame.questionId } }),
          { option: 1 },
        );
        if (chosen.status !== 204) throw new Error(`choose: ${String(chosen.status)}`);
        await runEnded;
        // The run's end is pushed too: 20 more, awaited so they are not counted as the next question's.
        await pushService.waitForMessages(received + DEVICES, { timeoutMs: 30_000 });
        received += DEVICES;
      }
      say(
        `idea ${String(idea + 1)} of ${String(IDEAS)}: ${String(deliveries.length)} question pushes so far`,
      );
    }
    say(
      `a question that waits, event seen → each device's push at the push service: p50 ${String(p(deliveries, 50))} ms, ` +
        `p99 ${String(p(deliveries, 99))} ms over ${String(deliveries.length)}; the last of the ${String(DEVICES)} devices p99 ${String(p(allDevices, 99))} ms; goal p99 < 1000 ms ${p(deliveries, 99) < 1000 ? 'met' : 'MISSED'}`,
    );
    console.log(
      JSON.stringify({
        devices: DEVICES,
        questions: IDEAS * TURNS,
        deliveryP50Ms: p(deliveries, 50),
        deliveryP99Ms: p(deliveries, 99),
        allDevicesP99Ms: p(allDevices, 99),
      }),
    );
  } finally {
    await bench.stop();
    await pushService.close();
  }
});
