// Where tests find the trace/6 conformance fixtures: `fixtures/trace6` in the repository, with their
// manifest (`scripts/fixture-digests.mjs` checks its digests). Import as `@cg/tooling-vitest`.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const fixturesDir = resolve(repoRoot, "fixtures/trace6");

if (!existsSync(fixturesDir)) {
  throw new Error(`trace fixtures not found at ${fixturesDir}: the repository checkout is incomplete`);
}

/** One fixture of `manifest.json`: its file (relative to `fixturesDir`) and what a reader must make of it. */
export interface FixtureEntry {
  file: string;
  expect: string;
}

/** `manifest.json` of the shared fixtures. */
export const fixtureManifest = JSON.parse(readFileSync(join(fixturesDir, "manifest.json"), "utf8")) as {
  fixtures: FixtureEntry[];
};

/** The files (relative to `fixturesDir`) of every fixture a reader accepts: all but the parse errors. */
export const acceptedFixtures: string[] = fixtureManifest.fixtures
  .filter((entry) => entry.expect !== "parse_error")
  .map((entry) => entry.file);
