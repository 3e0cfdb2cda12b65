import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RelayEventSchema, type RelayEvent } from '@catalyst/protocol';
import { text, type ScriptedModel } from '@catalyst/testkit';
import type { ServiceUnderTest } from './service-harness.ts';

// What the orphaned-run tests of both tiers start from (orphaned-run.test.ts, fast/orphaned-run.test.ts).

/** A chatted idea, then the files a SIGKILL during its build leaves on the VM; Catalyst is stopped. */
export async function leaveKilledBuild(
  fixture: { readonly service: ServiceUnderTest; readonly model: ScriptedModel },
  title: string,
): Promise<{ ideaId: string; lastSeq: number; left: RelayEvent[] }> {
  const idea = await fixture.service.createIdea(title);
  const client = await fixture.service.connect();
  await client.subscribe(idea.id);
  fixture.model.enqueue(text('Talked it through.'));
  await client.run(idea.id, 'chat', 'Let us talk.');
  client.close();
  await fixture.service.stop();

  // What a SIGKILL during the next build leaves on the VM.
  const folder = join(fixture.service.ideasRoot, idea.id);
  const eventsPath = join(folder, 'events.ndjson');
  const lines = (await readFile(eventsPath, 'utf8')).trim().split('\n');
  const lastSeq = RelayEventSchema.parse(JSON.parse(lines.at(-1) ?? '')).seq;
  const runId = 'run-killed';
  const ts = new Date().toISOString();
  const left: RelayEvent[] = [
    { type: 'idea:status', ideaId: idea.id, runId, seq: lastSeq + 1, ts, status: 'building' },
    {
      type: 'run:started',
      ideaId: idea.id,
      runId,
      seq: lastSeq + 2,
      ts,
      mode: 'build',
      message: 'Build it.',
    },
    {
      type: 'claude:text',
      ideaId: idea.id,
      runId,
      seq: lastSeq + 3,
      ts,
      text: 'Starting…',
      messageId: 'msg-killed',
      parentToolUseId: null,
    },
  ];
  await appendFile(eventsPath, left.map((event) => `${JSON.stringify(event)}\n`).join(''));
  const metaPath = join(folder, 'meta.json');
  const meta = JSON.parse(await readFile(metaPath, 'utf8')) as Record<string, unknown>;
  await writeFile(metaPath, JSON.stringify({ ...meta, status: 'building' }));

  return { ideaId: idea.id, lastSeq, left };
}
