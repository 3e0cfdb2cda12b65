import { PREVIEW_COMMAND_MAX } from '@catalyst/protocol';
import { describe, expect, it } from 'vitest';
import {
  describeExit,
  describePreviewState,
  FAST_POLL_MS,
  parsePreviewForm,
  pollDelayOf,
  SLOW_POLL_MS,
} from './preview-text.ts';

describe('the preview’s words', () => {
  it('says how it ended: the exit code first, else the signal', () => {
    expect(describeExit({ code: 0, signal: null })).toBe('exit code 0');
    expect(describeExit({ code: null, signal: 'SIGTERM' })).toBe('signal SIGTERM');
    expect(describeExit({ code: null, signal: null })).toBeUndefined();
    expect(describeExit(undefined)).toBeUndefined();
  });

  it('says a running preview without its origin, and a crash without its exit', () => {
    expect(describePreviewState({ state: 'running', command: 'x', port: 1 })).toBe('Running');
    expect(describePreviewState({ state: 'crashed', command: 'x', port: 1 })).toBe('Crashed');
  });

  it('looks often only while the preview is up', () => {
    expect(pollDelayOf('starting')).toBe(FAST_POLL_MS);
    expect(pollDelayOf('running')).toBe(FAST_POLL_MS);
    expect(pollDelayOf('stopped')).toBe(SLOW_POLL_MS);
    expect(pollDelayOf('crashed')).toBe(SLOW_POLL_MS);
    expect(pollDelayOf(undefined)).toBe(SLOW_POLL_MS);
  });
});

describe('parsePreviewForm', () => {
  it('trims the command and reads the port', () => {
    expect(parsePreviewForm('  npm run dev ', '5173')).toEqual({
      ok: true,
      body: { previewCommand: 'npm run dev', previewPort: 5173 },
    });
  });

  it.each(['', '0', '65536', '80.5', 'abc', '1e9'])('refuses the port %j', (port) => {
    expect(parsePreviewForm('npm run dev', port)).toEqual({
      ok: false,
      problems: { port: 'The port must be a whole number from 1 to 65535.' },
    });
  });

  it('refuses an empty command, and one too long or of two lines', () => {
    expect(parsePreviewForm(' ', '80')).toEqual({
      ok: false,
      problems: { command: 'Enter the command that starts the preview, e.g. npm run dev.' },
    });
    const tooLong = `The command must be one line of at most ${PREVIEW_COMMAND_MAX} characters.`;
    expect(parsePreviewForm('a'.repeat(PREVIEW_COMMAND_MAX + 1), '80')).toEqual({
      ok: false,
      problems: { command: tooLong },
    });
    expect(parsePreviewForm('npm i\nnpm run dev', '80')).toEqual({
      ok: false,
      problems: { command: tooLong },
    });
  });
});
