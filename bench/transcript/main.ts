import { performance } from 'node:perf_hooks';
import { RelayEventSchema, type RelayEvent } from '../../packages/protocol/src/index.ts';
import { buildItems } from '../../packages/frontend/src/transcript/transcript-items.ts';
import { summarize } from '../../packages/frontend/src/transcript/transcript-summary.ts';
import {
  applyFrames,
  emptyTranscript,
  type TranscriptState,
} from '../../packages/frontend/src/transcript/transcript-state.ts';

/**
 * The web app's transcript work, measured against what the page pays anyway for the same history: parsing the
 * frames (JSON.parse + the protocol's schema, as connection.ts does). Figures are medians of several rounds;
 * ratios are against the baseline of the same run. The last line is one JSON object.
 *
 * - replay: a whole history arriving at once (open or reconnect), in order and shuffled (a replay overlapping
 *   live events), then the render model (`buildItems`) and the header's summary.
 * - live: the same events one at a time, each followed by buildItems (what every live event costs).
 */

const EVENTS = Number(process.argv[2] ?? 5000);
const ROUNDS = 7;
const ideaId = 'idea-0123456789abcdef';

function history(count: number): RelayEvent[] {
  const events: RelayEvent[] = [];
  const ts = new Date(0).toISOString();
  let run = 0;
  while (events.length < count) {
    run += 1;
    const runId = `run-${run}`;
    const add = (fields: Record<string, unknown>) => {
      events.push(RelayEventSchema.parse({ ideaId, runId, seq: events.length + 1, ts, ...fields }));
    };
    add({ type: 'run:started', mode: run % 2 === 0 ? 'build' : 'chat', message: `Step ${run}: go on.` });
    for (let step = 0; step < 6; step += 1) {
      add({
        type: 'claude:thinking',
        thinking: 'Considering the next step. '.repeat(4),
        messageId: `m-${run}-${step}`,
      });
      add({
        type: 'claude:text',
        text: `Here is **part ${step}**:\n\n\`\`\`ts\nconst x = ${step};\n\`\`\`\n`,
        messageId: `m-${run}-${step}`,
        parentToolUseId: null,
      });
      const toolUseId = `tu-${run}-${step}`;
      add({
        type: 'claude:tool_use',
        toolUseId,
        name: step % 2 === 0 ? 'Write' : 'Bash',
        input:
          step % 2 === 0
            ? { file_path: `/p/f${step}.ts`, content: 'line\n'.repeat(40) }
            : { command: 'ls -la' },
        parentToolUseId: null,
      });
      add({ type: 'claude:tool_result', toolUseId, content: 'ok\n'.repeat(10), isError: false });
    }
    add({ type: 'run:ended', outcome: 'completed' });
  }
  return events.slice(0, count);
}

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

function time(work: () => void): number {
  const samples: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const started = performance.now();
    work();
    samples.push(performance.now() - started);
  }
  return median(samples);
}

const events = history(EVENTS);
const lines = events.map((event) => JSON.stringify(event));
const shuffled = [...events].sort((a, b) => ((a.seq * 7919) % 1009) - ((b.seq * 7919) % 1009));

// Results are kept so the work cannot be optimised away.
const kept: unknown[] = [];
const keep = (value: unknown) => kept.push(value);
const baselineMs = time(() => {
  keep(lines.map((line) => RelayEventSchema.parse(JSON.parse(line))));
});
const replayMs = time(() => {
  keep(applyFrames(emptyTranscript, events));
});
const replayShuffledMs = time(() => {
  keep(applyFrames(emptyTranscript, shuffled));
});
const full = applyFrames(emptyTranscript, events);
const itemsMs = time(() => {
  // A fresh event list each round: buildItems memoises per list.
  keep(buildItems({ ...full, events: [...full.events] }));
});
const summaryMs = time(() => {
  keep(summarize({ ...full, events: [...full.events] }));
});
const liveMs = time(() => {
  let state: TranscriptState = emptyTranscript;
  for (const event of events.slice(-500)) {
    state = applyFrames(state, [event]);
    keep(buildItems(state));
  }
});

const ratio = (ms: number) => Math.round((ms / baselineMs) * 100) / 100;
const round = (ms: number) => Math.round(ms * 100) / 100;
console.log(
  JSON.stringify({
    events: EVENTS,
    parseBaselineMs: round(baselineMs),
    replayMs: round(replayMs),
    replayShuffledMs: round(replayShuffledMs),
    buildItemsMs: round(itemsMs),
    summarizeMs: round(summaryMs),
    replayPlusItemsVsParse: ratio(replayMs + itemsMs),
    livePerEventMs: round(liveMs / 500),
    keptResults: kept.length,
  }),
);
