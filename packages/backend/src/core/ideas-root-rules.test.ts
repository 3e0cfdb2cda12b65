import { describe, expect, it } from 'vitest';
import { ideasRootProblem, resolvedIdeasRootProblem, SafeIdeasRootSchema } from './ideas-root-rules.ts';

describe('ideas roots (issue 39)', () => {
  it('refuses the home, / and the folders the system or its users share', () => {
    for (const root of ['~', '~/', '~/.', '~//', '/', '/tmp', '/tmp/', '//tmp', '/var/tmp', '/home', '/root'])
      expect(ideasRootProblem(root), root).toBeDefined();
    expect(ideasRootProblem('~')).toBe('is the home itself');
  });

  it('takes a folder of its own, below the home or elsewhere', () => {
    for (const root of ['~/catalyst/ideas', '~/.catalyst-ideas', '/srv/catalyst', '/tmp/catalyst-x/ideas'])
      expect(ideasRootProblem(root), root).toBeUndefined();
  });

  it('refuses, once the home is known, the home and its ancestors', () => {
    expect(resolvedIdeasRootProblem('/home/dev', '/home/dev')).toBe('is the home itself');
    expect(resolvedIdeasRootProblem('/home/dev/', '/home/dev')).toBe('is the home itself');
    expect(resolvedIdeasRootProblem('/data', '/data/users/dev')).toBe('holds the home');
    expect(resolvedIdeasRootProblem('/', '/root')).toBe('holds the home');
    expect(resolvedIdeasRootProblem('/home/dev/ideas', '/home/dev')).toBeUndefined();
    expect(resolvedIdeasRootProblem('/home/devx', '/home/dev')).toBeUndefined();
  });

  it('says in the config error what is wrong and what to choose', () => {
    const parsed = SafeIdeasRootSchema.safeParse('~');
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toBe(
      'The ideas folder ~ is the home itself: Catalyst makes it private and empties its .trash, so give it a folder of its own, e.g. ~/catalyst/ideas.',
    );
  });
});
