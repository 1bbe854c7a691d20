// Shared vitest settings: tests import sibling packages from their sources, so a change in one
// package is seen by the tests of another without rebuilding. Packaging is tested separately
// (pack-and-install tests run against the built tarballs).
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { defineProject, type UserWorkspaceConfig } from "vitest/config";

const toolingDir = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(toolingDir, "../..");

export const sourceAliases = [
  { find: /^@cg\/tooling-vitest$/, replacement: `${toolingDir}/fixtures.ts` },
  {
    // @cg/<name>/<subpath> -> packages/<name>/src/<subpath>.ts
    find: /^@cg\/([a-z0-9-]+)\/([a-z0-9-]+)$/,
    replacement: `${repoRoot}/packages/$1/src/$2.ts`,
  },
  {
    find: /^@cg\/([a-z0-9-]+)$/,
    replacement: `${repoRoot}/packages/$1/src/index.ts`,
  },
];

/**
 * A JSON report for `scripts/run-tests.mjs`, asked for through `CG_TEST_REPORT` (a file name in the
 * package folder) because arguments after turbo's `--` would change the hash of every task in the
 * run, builds included. `reporters` is a root option: it applies when a package's tests run in its
 * own folder (`pnpm test` there, or through turbo), not under the root config's projects.
 */
export function reportSettings(): { reporters?: unknown[] } {
  const outputFile = process.env.CG_TEST_REPORT;
  return outputFile ? { reporters: ["default", ["json", { outputFile }]] } : {};
}

export function packageProject(name: string, extra: UserWorkspaceConfig["test"] = {}) {
  return defineProject({
    resolve: { alias: sourceAliases },
    test: {
      name,
      include: ["src/**/*.test.ts", "test/**/*.test.ts"],
      typecheck: { enabled: true, include: ["src/**/*.test-d.ts"], tsconfig: "./tsconfig.json" },
      testTimeout: 30_000,
      hookTimeout: 60_000,
      ...reportSettings(),
      ...extra,
    },
  });
}
