import { describe, expect, it } from 'vitest';
import { parseInvocation } from './argv.ts';

describe('parseInvocation', () => {
  it('reads each command with its arguments and options', () => {
    expect(parseInvocation(['ideas', '--json']).command).toEqual({ kind: 'ideas', json: true });
    expect(parseInvocation(['new', 'A title', '--description', 'Why']).command).toEqual({
      kind: 'new',
      title: 'A title',
      description: 'Why',
      json: false,
    });
    expect(parseInvocation(['build', 'idea-0123456789abcdef', 'Make it so']).command).toEqual({
      kind: 'stream',
      mode: 'build',
      idea: 'idea-0123456789abcdef',
      message: 'Make it so',
      detach: false,
    });
    expect(parseInvocation(['chat', 'x', 'Hi', '--detach']).command).toMatchObject({ detach: true });
    expect(parseInvocation(['run', 'My idea', '--chat', 'Hi?', '--json', '--budget', '0.5']).command).toEqual(
      {
        kind: 'run',
        mode: 'chat',
        idea: 'My idea',
        message: 'Hi?',
        json: true,
        detach: false,
        budgetUsd: 0.5,
      },
    );
  });

  it('reads an autopilot’s steps in order, its policy, budget and failure handling', () => {
    const { command } = parseInvocation([
      'autopilot',
      'idea-0123456789abcdef',
      '--step',
      'build:/gsd:plan-phase 1',
      '--step',
      'build:"/gsd:execute-phase 1"',
      '--policy',
      'human_then_auto',
      '--budget',
      '5',
      '--continue-on-failure',
      '--detach',
    ]);
    expect(command).toEqual({
      kind: 'autopilot',
      idea: 'idea-0123456789abcdef',
      steps: [
        { mode: 'build', message: '/gsd:plan-phase 1' },
        { mode: 'build', message: '/gsd:execute-phase 1' },
      ],
      policy: 'human_then_auto',
      budgetUsd: 5,
      stopOnFailure: false,
      json: false,
      detach: true,
    });
    expect(parseInvocation(['autopilot', 'x', '--step', 'chat:go']).command).toMatchObject({
      policy: 'auto',
      stopOnFailure: true,
    });
  });

  it('reads shell with exactly one idea', () => {
    expect(parseInvocation(['shell', 'idea-0123456789abcdef']).command).toEqual({
      kind: 'shell',
      idea: 'idea-0123456789abcdef',
    });
    expect(() => parseInvocation(['shell'])).toThrow(/shell takes one <idea>/);
    expect(() => parseInvocation(['shell', 'a', 'b'])).toThrow(/shell takes one <idea>/);
    expect(() => parseInvocation(['shell', 'a', '--json'])).toThrow();
  });

  it('reads the queue’s actions: show, add (with --now), resume (one more step), clear, one at a time', () => {
    const idea = 'idea-0123456789abcdef';
    expect(parseInvocation(['queue', idea]).command).toEqual({
      kind: 'queue',
      idea,
      action: { type: 'show' },
      json: false,
    });
    expect(parseInvocation(['queue', idea, 'build:"Add tests."', '--now']).command).toMatchObject({
      action: { type: 'add', step: { mode: 'build', message: 'Add tests.' }, now: true },
    });
    expect(parseInvocation(['queue', idea, '--resume', '--one-more-step']).command).toMatchObject({
      action: { type: 'resume', oneMoreStep: true },
    });
    expect(parseInvocation(['queue', idea, '--clear', '--json']).command).toMatchObject({
      action: { type: 'clear' },
      json: true,
    });
    expect(() => parseInvocation(['queue', idea, 'chat:hi', '--clear'])).toThrow(/one of them/);
    expect(() => parseInvocation(['queue', idea, '--now'])).toThrow(/--now goes with a message/);
    expect(() => parseInvocation(['queue', idea, 'hi'])).toThrow(/chat:"message" or build:"message"/);
  });

  it('takes --url and --token-file before or after the command', () => {
    const before = parseInvocation(['--url', 'http://h:1', 'ideas', '--token-file', '/t']);
    expect(before.connection).toEqual({ url: 'http://h:1', tokenFile: '/t' });
    expect(parseInvocation(['ideas']).connection).toEqual({});
  });

  it('takes a message that starts with a dash after --', () => {
    expect(parseInvocation(['chat', 'x', '--', '-v is what?']).command).toMatchObject({
      message: '-v is what?',
    });
  });

  it('answers help for --help, -h, help and help <command>', () => {
    expect(parseInvocation(['--help']).command).toEqual({ kind: 'help' });
    expect(parseInvocation(['-h']).command).toEqual({ kind: 'help' });
    expect(parseInvocation(['help']).command).toEqual({ kind: 'help' });
    expect(parseInvocation(['help', 'run']).command).toEqual({ kind: 'help', topic: 'run' });
    expect(parseInvocation(['build', '--help']).command).toEqual({ kind: 'help', topic: 'build' });
  });

  it.each([
    [[]],
    [['deploy']],
    [['ideas', 'extra']],
    [['ideas', '--verbose']],
    [['ideas', '--step', 'build:x']],
    [['build', 'idea-0123456789abcdef']],
    [['build', 'idea', 'fix', 'it']],
    [['chat', 'idea', '  ']],
    [['new']],
    [['new', '']],
    [['run', 'idea']],
    [['run', 'idea', '--build', 'a', '--chat', 'b']],
    [['run', 'idea', '--build']],
    [['run', 'idea', '--build', 'a', '--budget', 'lots']],
    [['run', 'idea', '--build', 'a', '--budget', '-1']],
    [['autopilot', 'idea']],
    [['autopilot', 'idea', '--step', 'deploy:x']],
    [['autopilot', 'idea', '--step', 'build:x', '--policy', 'never']],
  ])('refuses %j as a usage error', (argv) => {
    expect(() => parseInvocation(argv)).toThrow(expect.objectContaining({ code: 'USAGE' }));
  });
});
