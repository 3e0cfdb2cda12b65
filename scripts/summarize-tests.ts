// Prints where the run's time went (each project's wall time, the 15 slowest files), then its closing line in the
// plain form CI reads: "tests: N passed, N failed".
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { describeTimings, FileResultSchema } from './test-timings.ts';

const ReportSchema = z.object({
  numPassedTests: z.number(),
  numFailedTests: z.number(),
  numPendingTests: z.number().default(0),
  numRuntimeErrorTestSuites: z.number().default(0),
  testResults: z.array(FileResultSchema).default([]),
});

const path = process.argv[2] ?? '';
let raw: unknown;
try {
  raw = JSON.parse(readFileSync(path, 'utf8'));
} catch (error) {
  console.error(`no test report at ${path}: ${String(error)}`);
  process.exit(1);
}
const report = ReportSchema.parse(raw);
for (const line of describeTimings(report.testResults, process.cwd())) console.log(line);
const failed = report.numFailedTests + report.numRuntimeErrorTestSuites;
console.log(`tests: ${report.numPassedTests} passed, ${failed} failed, ${report.numPendingTests} skipped`);
if (report.numPendingTests > 0) {
  console.error('skipped tests are not allowed in CI');
  process.exit(1);
}
