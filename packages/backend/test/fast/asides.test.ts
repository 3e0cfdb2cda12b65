import { describe, expect, it } from 'vitest';
import { stall, text } from '@catalyst/testkit';
import { expectNothingLeft } from './fast-kit.ts';
import { useFastService } from './fast-harness.ts';
import { askAside, listAsides } from '../aside-client.ts';

// Question asides (issue 30), what the service decides about them: when one is refused, how many may go at once,
// and that a delete stops them. The end-to-end file (../asides.test.ts) keeps the aside the real CLI forks from
// the idea's session while a build waits.

const fixture = useFastService();

describe('question asides', () => {
  it('refuses an idea that never ran and a fourth aside at once; a delete stops the asides', async () => {
    const { service, model } = fixture;
    const idea = await service.createIdea('Aside refusals');
    const none = await askAside(fixture.service, idea.id, { question: 'Anything?' });
    expect(none.status).toBe(409);
    expect(await none.json()).toMatchObject({ error: { code: 'NO_SESSION' } });

    model.enqueue(text('Hello.'));
    const client = await service.connect();
    await client.subscribe(idea.id);
    await client.run(idea.id, 'chat', 'Hi.');
    client.close();

    const base = model.requests.length;
    model.enqueue(stall(), stall(), stall());
    for (const question of ['One?', 'Two?', 'Three?'])
      expect((await askAside(fixture.service, idea.id, { question })).status).toBe(202);
    await model.waitForRequest(base + 2);
    const fourth = await askAside(fixture.service, idea.id, { question: 'Four?' });
    expect(fourth.status).toBe(429);
    expect(await fourth.json()).toMatchObject({ error: { code: 'TOO_MANY_ASIDES' } });

    const deleted = await service.api(`/api/ideas/${idea.id}`, { method: 'DELETE' });
    expect(deleted.status).toBe(204);
    await expectNothingLeft(fixture, idea.id);
  });

  it('refuses an aside once the idea has spent its budget, as a run is refused', async () => {
    const { service, model } = fixture;
    const idea = await service.createIdea('Aside on a budget');
    model.enqueue(text('Hello.'));
    const client = await service.connect();
    await client.subscribe(idea.id);
    await client.run(idea.id, 'chat', 'Hi.');
    client.close();
    const patched = await service.api(`/api/ideas/${idea.id}`, {
      method: 'PATCH',
      body: JSON.stringify({ budgetUsd: 0.0001 }),
    });
    expect(patched.status).toBe(200);
    const refused = await askAside(fixture.service, idea.id, { question: 'Why?' });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ error: { code: 'BUDGET_EXCEEDED' } });
    expect(await listAsides(fixture.service, idea.id)).toEqual([]);
  });
});
