// CONTRIBUTING's layering table names every published package and exactly what its package.json
// depends on (dependencies and peers), so the table cannot drift from the manifests.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { publishedPackages, repoRoot } from "./workspace-packages.js";

const contributing = readFileSync(join(repoRoot, "CONTRIBUTING.md"), "utf8");
const packages = publishedPackages();
const shortNames = new Set(packages.map((pkg) => pkg.name.replace("@cg/", "")));

/** Each row's package and the dependencies the row names, read from the table under "## Layering". */
function tableRows(): Map<string, string[]> {
  const section = contributing.slice(
    contributing.indexOf("## Layering"),
    contributing.indexOf("## Where tests go"),
  );
  const rows = new Map<string, string[]>();
  for (const line of section.split("\n")) {
    const cells = line.split("|").map((cell) => cell.trim());
    const name = cells[2]?.match(/`(@cg\/[a-z-]+)`/)?.[1];
    if (name === undefined || cells[3] === undefined) continue;
    const text = cells[3].replace(/\([^)]*\)/g, "");
    const quoted = [...text.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);
    const bare = text
      .replace(/`[^`]+`/g, "")
      .split(/[\s,;:]+/)
      .filter((word) => shortNames.has(word))
      .map((word) => `@cg/${word}`);
    rows.set(name, [...quoted, ...bare].sort());
  }
  return rows;
}

describe("CONTRIBUTING layering table", () => {
  const rows = tableRows();

  it("has a row for every published package", () => {
    expect([...rows.keys()].sort()).toEqual(packages.map((pkg) => pkg.name).sort());
  });

  for (const pkg of packages) {
    it(`names exactly what ${pkg.name} depends on`, () => {
      const declared = [
        ...Object.keys(pkg.manifest.dependencies ?? {}),
        ...Object.keys(pkg.manifest.peerDependencies ?? {}),
      ].sort();
      expect(rows.get(pkg.name)).toEqual(declared);
    });
  }
});
