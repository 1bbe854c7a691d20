// How `changeset version` writes CHANGELOG.md entries: each changeset's summary once, and at most
// one "Dependencies" line per release naming every updated @cg/* dependency once with its new
// version. (The stock writer adds an "Updated dependencies" block per changeset, so a release
// touched by several changesets repeats the same dependency list.)

/** One changelog line for a changeset (the `getReleaseLine` of @changesets/types). */
async function getReleaseLine(changeset) {
  const [first = "", ...rest] = changeset.summary.trim().split("\n");
  const continuation = rest.map((line) => (line.trim() === "" ? "" : `\n  ${line}`)).join("");
  return `\n- ${first}${continuation}`;
}

/** The one "Dependencies" line of a release (`getDependencyReleaseLine`). */
async function getDependencyReleaseLine(_changesets, dependenciesUpdated) {
  if (dependenciesUpdated.length === 0) return "";
  const seen = new Map();
  for (const dependency of dependenciesUpdated) seen.set(dependency.name, dependency.newVersion);
  const list = [...seen].map(([name, version]) => `\`${name}@${version}\``).join(", ");
  return `\n- Dependencies: ${list}`;
}

module.exports = { default: { getReleaseLine, getDependencyReleaseLine } };
