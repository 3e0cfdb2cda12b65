/**
 * How soon a push reaches a device (issue 29: "within 1 s"): p50 and worst, over 10 of each, of the time from the
 * moment a WebSocket client sees the event to the moment the test kit's push service (on loopback, checking the
 * VAPID signature and decrypting like a browser's push service) has the push, for a question that waits and for a
 * run that ended; the real claude CLI on the test kit's sshd and the scripted model. The push leg is Catalyst's own
 * (the notifier, the encryption, the POST); a real push service adds its own delivery on top.
 * Human-readable lines first; the last line is one JSON object:
 * {"questionPushP50Ms","questionPushMaxMs","runEndedPushP50Ms","runEndedPushMaxMs"}. Asserts nothing.
 * Needs root, as the test kit does. Run it with scripts/bench-push.
 */
import { percentile } from '../relay/lines.ts';
import { BenchCatalyst, say, withSite } from '../shared/bench-catalyst.ts';
import { colorQuestion, startMockPushService, text, toolUse } from '../../packages/testkit/src/index.ts';
import { API, apiPath } from '../../packages/protocol/src/index.ts';

const ROUNDS = 10;

function p(values: readonly number[], at: number): number {
  return Math.round(percentile(values, at) * 10) / 10;
}

await withSite(async (site) => {
  const pushService = await startMockPushService();
  const bench = await BenchCatalyst.start(site, {}, { push: { allowLoopbackHttp: true } });
  try {
    const browser = await bench.logInAsBrowser();
    const key = API.pushKey.response.parse(await (await bench.asBrowser(browser, API.pushKey.path)).json());
    const subscription = pushService.createSubscription({ applicationServerKey: key.publicKey });
    await bench.asBrowser(browser, API.addPushSubscription.path, subscription);
    const question: number[] = [];
    const ended: number[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const ideaId = await bench.createIdea(`Pushed ${String(round)}`);
      await bench.subscribe(ideaId);
      site.model.enqueue(toolUse('AskUserQuestion', { questions: [colorQuestion] }), text('Blue it is.'));
      const asked = bench.next((frame) => frame.type === 'claude:question' && frame.ideaId === ideaId);
      const runEnded = bench.next((frame) => frame.type === 'run:ended' && frame.ideaId === ideaId);
      bench.send({ type: 'chat', ideaId, message: 'Pick a color.' });
      const frame = await asked;
      const seenAt = performance.now();
      await pushService.nextMessage();
      question.push(performance.now() - seenAt);
      if (frame.type !== 'claude:question') throw new Error('not a question');
      const chosen = await bench.asBrowser(
        browser,
        apiPath(API.chooseOption, { params: { id: ideaId, questionId: frame.questionId } }),
        { option: 1 },
      );
      if (chosen.status !== 204) throw new Error(`choose: ${String(chosen.status)}`);
      await runEnded;
      const endedAt = performance.now();
      await pushService.nextMessage();
      ended.push(performance.now() - endedAt);
    }
    say(
      `a question that waits, event seen → push received: p50 ${String(p(question, 50))} ms, worst ${String(p(question, 100))} ms`,
    );
    say(
      `a run that ended, event seen → push received: p50 ${String(p(ended, 50))} ms, worst ${String(p(ended, 100))} ms`,
    );
    console.log(
      JSON.stringify({
        questionPushP50Ms: p(question, 50),
        questionPushMaxMs: p(question, 100),
        runEndedPushP50Ms: p(ended, 50),
        runEndedPushMaxMs: p(ended, 100),
      }),
    );
  } finally {
    await bench.stop();
    await pushService.close();
  }
});
