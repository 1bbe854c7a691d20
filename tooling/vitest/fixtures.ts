// Where tests find the shared trace fixtures: `../shared/fixtures/trace6` beside the repository
// (CI lays out a copy of shared/ there too). Import as `@cg/tooling-vitest`.
import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const fixturesDir = resolve(repoRoot, "../shared/fixtures/trace6");

if (!existsSync(fixturesDir)) {
  throw new Error(
    `trace fixtures not found at ${fixturesDir}: the shared folder must lie beside the repository`,
  );
}
