import { relative } from 'node:path';
import { z } from 'zod';

/**
 * Where a test run's time went, from vitest's JSON report: each project's wall time (its first file's start to its
 * last file's end) and the sum of its files' times, and the slowest files (issue 26: the next slow file is seen the
 * day it arrives). The project of a file is told by its path, as vitest.config.ts places them.
 */

export const FileResultSchema = z.object({
  name: z.string(),
  startTime: z.number(),
  endTime: z.number(),
});
export type FileResult = z.infer<typeof FileResultSchema>;

export type ProjectName = 'unit' | 'web' | 'fast' | 'e2e';

export function projectOf(path: string): ProjectName {
  if (/\/packages\/backend\/test\/fast\//.test(path)) return 'fast';
  if (/\/packages\/[^/]+\/test\//.test(path)) return 'e2e';
  if (/\/packages\/frontend\/src\//.test(path)) return 'web';
  return 'unit';
}

export interface ProjectTime {
  project: ProjectName;
  files: number;
  wallMs: number;
  sumMs: number;
}

export function timeProjects(files: readonly FileResult[]): ProjectTime[] {
  const projects: ProjectName[] = ['unit', 'web', 'fast', 'e2e'];
  return projects.flatMap((project) => {
    const own = files.filter((file) => projectOf(file.name) === project);
    if (own.length === 0) return [];
    const start = Math.min(...own.map((file) => file.startTime));
    const end = Math.max(...own.map((file) => file.endTime));
    const sumMs = own.reduce((sum, file) => sum + (file.endTime - file.startTime), 0);
    return [{ project, files: own.length, wallMs: end - start, sumMs }];
  });
}

export function slowestFiles(files: readonly FileResult[], count: number): FileResult[] {
  return [...files].sort((a, b) => b.endTime - b.startTime - (a.endTime - a.startTime)).slice(0, count);
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** The lines `scripts/test` prints at the end of a run. */
export function describeTimings(files: readonly FileResult[], root: string, count = 15): string[] {
  const lines = timeProjects(files).map(
    (time) =>
      `time ${time.project}: ${seconds(time.wallMs)} wall, ${seconds(time.sumMs)} in its ${String(time.files)} files`,
  );
  lines.push(`the ${String(Math.min(count, files.length))} slowest files:`);
  for (const file of slowestFiles(files, count)) {
    lines.push(`  ${seconds(file.endTime - file.startTime).padStart(8)}  ${relative(root, file.name)}`);
  }
  return lines;
}
