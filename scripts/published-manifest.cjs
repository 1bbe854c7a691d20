// The manifest a package is published with (pnpm's beforePacking hook, see .pnpmfile.cjs):
// - no devDependencies and no scripts: they name private workspace tooling (`@cg/tooling-*@0.0.0`)
//   that exists in no registry, and a consumer never runs them;
// - repository (with its directory), homepage and bugs, derived from one repository address, for
//   a package that does not spell them out;
// - the changelog in `files`, so npm users can read what changed.
// The packaging tests check the packed result.
const { existsSync, readdirSync, readFileSync } = require("node:fs");
const { join } = require("node:path");

const repositoryUrl = "https://github.com/candle-graph/cg-trace";

/** The workspace directory (e.g. `packages/schema`) of the package with this name. */
function packageDirectory(name) {
  for (const entry of readdirSync(join(__dirname, "..", "packages"))) {
    const manifestPath = join(__dirname, "..", "packages", entry, "package.json");
    if (!existsSync(manifestPath)) continue;
    if (JSON.parse(readFileSync(manifestPath, "utf8")).name === name) return `packages/${entry}`;
  }
  throw new Error(`${name}: not a package under packages/, cannot derive its repository directory`);
}

function repositoryFields(name) {
  const directory = packageDirectory(name);
  return {
    repository: { type: "git", url: `git+${repositoryUrl}.git`, directory },
    homepage: `${repositoryUrl}/tree/main/${directory}#readme`,
    bugs: { url: `${repositoryUrl}/issues` },
  };
}

function publishedManifest(manifest) {
  const published = { ...manifest };
  delete published.devDependencies;
  delete published.scripts;
  const derived = repositoryFields(manifest.name);
  for (const field of ["repository", "homepage", "bugs"]) published[field] ??= derived[field];
  if (Array.isArray(published.files) && !published.files.includes("CHANGELOG.md")) {
    published.files = [...published.files, "CHANGELOG.md"];
  }
  return published;
}

module.exports = { publishedManifest, repositoryFields, repositoryUrl };
