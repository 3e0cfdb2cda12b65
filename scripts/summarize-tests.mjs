// Prints the run's closing line in the plain form CI reads: "tests: N passed, N failed".
import { readFileSync } from 'node:fs';

const path = process.argv[2];
let report;
try {
  report = JSON.parse(readFileSync(path, 'utf8'));
} catch (error) {
  console.error(`no test report at ${path}: ${error.message}`);
  process.exit(1);
}
const failed = report.numFailedTests + (report.numRuntimeErrorTestSuites ?? 0);
console.log(`tests: ${report.numPassedTests} passed, ${failed} failed`);
