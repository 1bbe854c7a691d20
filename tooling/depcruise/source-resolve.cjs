// Resolution for the cycle check (`.dependency-cruiser.cjs`): `@cg/<name>` is read from
// `packages/<name>/src/index.ts` and `@cg/<name>/<subpath>` from `packages/<name>/src/<subpath>.ts`,
// as the tests see them (`tooling/vitest/shared.ts`), so a circle through a package entry — a file
// importing its own package by name — is seen without a build.
const { readdirSync } = require("node:fs");
const { join } = require("node:path");

const packagesDir = join(__dirname, "../../packages");
const alias = {};
for (const name of readdirSync(packagesDir)) {
  alias[`@cg/${name}$`] = join(packagesDir, name, "src/index.ts");
  alias[`@cg/${name}`] = join(packagesDir, name, "src");
}
alias["@cg/tooling-vitest$"] = join(__dirname, "../vitest/fixtures.ts");

module.exports = { resolve: { alias } };
