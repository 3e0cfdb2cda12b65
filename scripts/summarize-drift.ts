// scripts/test-cli-drift's verdict: which test files passed against the newest published CLI, which tests failed,
// and a closing line in the plain form CI reads ("cli-drift: N passed, N failed").
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { z } from 'zod';

const ReportSchema = z.object({
  numPassedTests: z.number(),
  numFailedTests: z.number(),
  numPendingTests: z.number().default(0),
  numRuntimeErrorTestSuites: z.number().default(0),
  testResults: z.array(
    z.object({
      name: z.string(),
      status: z.string(),
      message: z.string().default(''),
      assertionResults: z.array(
        z.object({
          fullName: z.string(),
          status: z.string(),
          failureMessages: z.array(z.string()).default([]),
        }),
      ),
    }),
  ),
});

const [path = '', newest = '?', pinned = '?'] = process.argv.slice(2);
let raw: unknown;
try {
  raw = JSON.parse(readFileSync(path, 'utf8'));
} catch (error) {
  console.error(`[cli-drift] no test report at ${path}: ${String(error)}`);
  process.exit(1);
}
const report = ReportSchema.parse(raw);

console.log(`\nAgainst the newest published claude CLI, ${newest} (the tests pin ${pinned}):`);
for (const file of report.testResults) {
  const passed = file.assertionResults.filter((test) => test.status === 'passed').length;
  const failed = file.assertionResults.filter((test) => test.status === 'failed');
  const mark = file.status === 'passed' ? 'pass' : 'FAIL';
  console.log(`  ${mark}  ${relative(process.cwd(), file.name)}: ${passed} passed, ${failed.length} failed`);
  if (file.status !== 'passed' && file.assertionResults.length === 0) {
    console.log(`          ${file.message.split('\n')[0] ?? 'the file did not run'}`);
  }
  for (const test of failed) {
    const first = test.failureMessages[0]?.split('\n')[0] ?? '';
    console.log(`          ✗ ${test.fullName}\n            ${first.slice(0, 300)}`);
  }
}

const failed = report.numFailedTests + report.numRuntimeErrorTestSuites;
if (failed > 0 || report.numPendingTests > 0) {
  console.log(
    `\nThe newest claude CLI (${newest}) differs from what the tests expect (pinned ${pinned}): ` +
      'users with a current CLI would meet these failures. Measure what changed, record it in docs/protocol.md ' +
      '("CLI versions"), make Catalyst and the tests follow the CLI, then move the pin in packages/testkit/package.json.',
  );
} else if (report.numPassedTests === 0) {
  console.log('\nNo test ran against the newest CLI: the drift check proved nothing.');
} else {
  console.log(`\nNo drift: every test that drives the real CLI passes against ${newest}.`);
}
console.log(`cli-drift: ${report.numPassedTests} passed, ${failed} failed`);
if (failed > 0 || report.numPassedTests === 0 || report.numPendingTests > 0) process.exit(1);
