import { describe, expect, it } from 'vitest';
import { parseProjectPath, projectArgument } from './project-path.ts';

// Paths of the file browser (issue 13): escapes are refused before the host is asked; hostile names are names.

describe('parseProjectPath', () => {
  it.each([
    ['', []],
    ['.', []],
    ['src//app/./main.ts/', ['src', 'app', 'main.ts']],
    ['-rf', ['-rf']],
    ['it\'s "$(rm -rf ~)"\nnext', ['it\'s "$(rm -rf ~)"\nnext']],
    ['..hidden/x..y', ['..hidden', 'x..y']],
  ])('takes %j as %j', (raw, segments) => {
    const parsed = parseProjectPath(raw);
    expect(parsed).toEqual({ ok: true, segments, path: segments.join('/') });
  });

  it.each([
    ['/etc/passwd', 'relative'],
    ['../other-idea', '..'],
    ['src/../../x', '..'],
    ['a\0b', 'NUL'],
    ['x'.repeat(5_000), 'bytes'],
  ])('refuses %j, saying why', (raw, why) => {
    const parsed = parseProjectPath(raw);
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? '' : parsed.problem).toContain(why);
  });
});

describe('projectArgument', () => {
  it('prefixes ./ so that a leading - is never an option; the project itself is .', () => {
    expect(projectArgument({ segments: ['-rf'] })).toBe('./-rf');
    expect(projectArgument({ segments: [] })).toBe('.');
  });
});
