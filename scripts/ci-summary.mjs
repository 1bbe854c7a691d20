// Prints "N passed, N failed" over the vitest JSON reports of every package's tests (run-tests.mjs
// has each package write one). A run that failed before any test ran (lint, build, typecheck,
// package checks) counts as one failure; a package whose report is missing when others have
// theirs counts as one failure; a report without failed tests but marked unsuccessful (a file
// that failed to load, a type error) counts as one. `--clean` removes every report first.
import { existsSync, readFileSync, rmSync } from "node:fs";
import { testWorkspaces } from "./test-workspaces.mjs";

const args = process.argv.slice(2);
if (args[0] === "--clean") {
  for (const { report } of testWorkspaces()) rmSync(report, { force: true });
  process.exit(0);
}
const [exitStatus = "0"] = args;

const workspaces = testWorkspaces();
const present = workspaces.filter(({ report }) => existsSync(report));
let passed = 0;
let failed = 0;
let skipped = 0;
if (present.length === 0) {
  failed = 1;
} else {
  for (const { name, report: path } of workspaces) {
    if (!existsSync(path)) {
      console.error(`${name}: no test report (its tests did not run to the end)`);
      failed += 1;
      continue;
    }
    const report = JSON.parse(readFileSync(path, "utf8"));
    const failedTests = report.numFailedTests ?? 0;
    passed += report.numPassedTests ?? 0;
    failed += failedTests === 0 && report.success === false ? 1 : failedTests;
    skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  }
}
if (failed === 0 && exitStatus !== "0") failed = 1;
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
