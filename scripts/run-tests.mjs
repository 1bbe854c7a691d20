// The test step of `pnpm test`: every workspace package's own `test` script through turbo, so each
// package's tests are cached by its inputs and its dependencies' builds. Every package runs even
// when another fails (`--continue`); the exit status is turbo's. Each package writes a vitest JSON
// report (`reportSettings` in tooling/vitest/shared.ts) that ci-summary.mjs adds up. Extra
// arguments go to turbo (e.g. `--filter=@cg/writer`).
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { availableParallelism } from "node:os";
import { REPORT_FILE, repoRoot, testWorkspaces } from "./test-workspaces.mjs";

// A report left by an earlier run must not be counted for a package that does not run now.
for (const { report } of testWorkspaces()) rmSync(report, { force: true });

// Vitest alone would use one worker per core but one. Packages run side by side in `lanes`, and each
// vitest gets its share of those workers, so the machine carries about the load one vitest over
// every package did (on 2 cores: one package at a time, one worker).
const cores = availableParallelism();
const lanes = Math.max(1, Math.floor(cores / 4));
const workersPerLane = Math.max(1, Math.floor((cores - 1) / lanes));

// Options reach each vitest through the environment: arguments after turbo's `--` would be part of
// every task's hash, so the builds would miss the cache that the build step just filled.
const result = spawnSync(
  "pnpm",
  ["exec", "turbo", "run", "test", "--continue", `--concurrency=${lanes}`, ...process.argv.slice(2)],
  {
    cwd: repoRoot,
    stdio: "inherit",
    env: {
      ...process.env,
      CG_TEST_REPORT: REPORT_FILE,
      VITEST_MAX_WORKERS: String(workersPerLane),
    },
  },
);
process.exit(result.status ?? 1);
