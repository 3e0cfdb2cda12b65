import { describe, expect, it } from 'vitest';
import { parseStepSpec } from './step-spec.ts';

describe('parseStepSpec', () => {
  it('splits at the first colon, so a slash command keeps its own', () => {
    expect(parseStepSpec('build:/gsd:plan-phase 1')).toEqual({ mode: 'build', message: '/gsd:plan-phase 1' });
    expect(parseStepSpec('chat:What next?')).toEqual({ mode: 'chat', message: 'What next?' });
  });

  it('removes quotes that reached it, double or single', () => {
    expect(parseStepSpec('build:"/gsd:execute-phase 1"')).toEqual({
      mode: 'build',
      message: '/gsd:execute-phase 1',
    });
    expect(parseStepSpec("chat: 'Plan it' ")).toEqual({ mode: 'chat', message: 'Plan it' });
    expect(parseStepSpec('chat:"unbalanced')).toEqual({ mode: 'chat', message: '"unbalanced' });
  });

  it('refuses an unknown mode, a missing colon and an empty message as usage errors', () => {
    for (const spec of ['deploy:now', 'build', 'build:', 'build:""', ':x']) {
      expect(() => parseStepSpec(spec), spec).toThrow(expect.objectContaining({ code: 'USAGE' }));
    }
  });
});
