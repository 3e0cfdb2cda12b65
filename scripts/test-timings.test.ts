import { describe, expect, it } from 'vitest';
import { describeTimings, projectOf, slowestFiles, timeProjects } from './test-timings.ts';

const file = (name: string, startTime: number, endTime: number) => ({
  name: `/repo/${name}`,
  startTime,
  endTime,
});

describe('test timings', () => {
  it('tells each file’s project by its path, as vitest.config.ts places them', () => {
    expect(projectOf('/repo/packages/backend/test/runs.test.ts')).toBe('e2e');
    expect(projectOf('/repo/packages/backend/test/fast/queue.test.ts')).toBe('fast');
    expect(projectOf('/repo/packages/frontend/test/login.test.ts')).toBe('e2e');
    expect(projectOf('/repo/packages/frontend/src/app/Composer.test.tsx')).toBe('web');
    expect(projectOf('/repo/packages/backend/src/core/ndjson-lines.test.ts')).toBe('unit');
    expect(projectOf('/repo/scripts/test-timings.test.ts')).toBe('unit');
  });

  it('gives each project its wall time and the sum of its files, and the slowest files first', () => {
    const files = [
      file('packages/backend/test/a.test.ts', 0, 30_000),
      file('packages/backend/test/b.test.ts', 30_000, 40_000),
      file('packages/backend/src/core/c.test.ts', 5_000, 6_000),
      file('packages/frontend/src/d.test.tsx', 2_000, 9_000),
    ];
    expect(timeProjects(files)).toEqual([
      { project: 'unit', files: 1, wallMs: 1_000, sumMs: 1_000 },
      { project: 'web', files: 1, wallMs: 7_000, sumMs: 7_000 },
      { project: 'e2e', files: 2, wallMs: 40_000, sumMs: 40_000 },
    ]);
    expect(slowestFiles(files, 2).map((f) => f.name)).toEqual([
      '/repo/packages/backend/test/a.test.ts',
      '/repo/packages/backend/test/b.test.ts',
    ]);
    const lines = describeTimings(files, '/repo', 2);
    expect(lines[2]).toBe('time e2e: 40.0 s wall, 40.0 s in its 2 files');
    expect(lines.slice(3)).toEqual([
      'the 2 slowest files:',
      '    30.0 s  packages/backend/test/a.test.ts',
      '    10.0 s  packages/backend/test/b.test.ts',
    ]);
  });
});
