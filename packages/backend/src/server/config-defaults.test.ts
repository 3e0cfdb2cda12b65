import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_RUN_MS } from '../core/run-wrapper.ts';
import { resolveTimings } from '../runs/core/run-commands.ts';
import { resolveRunLimits } from '../host/wrapped-run.ts';
import { DEFAULT_SESSION_DAYS, loadConfig } from './config.ts';

// Issue 16, item 11: the core once stopped a run after 2 h by default while CATALYST_MAX_RUN_MS said 6 h.
describe('the default maximum run time', () => {
  it('is one value for the configuration, the run lifecycle and the wrapper', () => {
    const config = loadConfig({}, { homeDir: '/home/alice' });
    const timings = resolveTimings({
      ideaId: 'idea-0123456789abcdef',
      runId: 'r',
      mode: 'chat',
      prompt: 'p',
    });
    expect(config.maxRunMs).toBe(DEFAULT_MAX_RUN_MS);
    expect(timings.maxDurationMs).toBe(DEFAULT_MAX_RUN_MS);
    expect(resolveRunLimits().maxRuntimeMs).toBe(DEFAULT_MAX_RUN_MS);
    expect(DEFAULT_MAX_RUN_MS).toBe(6 * 3_600_000);
  });
});

// Issue 25, finding 14: a browser session ends on its own, a month after its login unless configured otherwise.
describe('the default lifetime of a browser session', () => {
  it('is 30 days', () => {
    expect(loadConfig({}, { homeDir: '/home/alice' }).sessionDays).toBe(30);
    expect(DEFAULT_SESSION_DAYS).toBe(30);
  });
});
