// Prints "N passed, N failed" from vitest's JSON report. A run that failed before vitest wrote its
// report (lint, typecheck, build, package checks) counts as one failure.
import { existsSync, readFileSync } from "node:fs";

const [reportPath = ".vitest-report.json", exitStatus = "0"] = process.argv.slice(2);
if (!existsSync(reportPath)) {
  console.log(`0 passed, 1 failed`);
  process.exit(0);
}
const report = JSON.parse(readFileSync(reportPath, "utf8"));
const passed = report.numPassedTests ?? 0;
let failed = (report.numFailedTests ?? 0) + ((report.numFailedTestSuites ?? 0) ? 0 : 0);
if (failed === 0 && exitStatus !== "0") failed = 1;
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
