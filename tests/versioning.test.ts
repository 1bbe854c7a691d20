// The versioning policy, on scratch copies of the repository: `changeset version` with the pending
// changesets, then with a minor and a major change to @cg/schema, never releases a combination of
// packages that splits an install (see release-plan.ts and CONTRIBUTING.md).
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  addChangeset,
  type PlannedPackage,
  publishedRange,
  removeScratch,
  satisfies,
  scratchCopy,
  splitProblems,
  versionScratch,
} from "./release-plan.js";

const scratches: string[] = [];
afterEach(() => {
  for (const scratch of scratches.splice(0)) removeScratch(scratch);
});

/** A scratch copy at the versions the pending changesets would release, no changeset left. */
function releasedScratch(): string {
  const scratch = scratchCopy();
  scratches.push(scratch);
  versionScratch(scratch);
  const left = readdirSync(join(scratch, ".changeset")).filter((file) => file.endsWith(".md"));
  for (const file of left.filter((name) => name !== "README.md")) rmSync(join(scratch, ".changeset", file));
  return scratch;
}

function find(plan: PlannedPackage[], name: string): PlannedPackage {
  const pkg = plan.find((candidate) => candidate.name === name);
  if (!pkg) throw new Error(`${name} is not in the plan`);
  return pkg;
}

/** Every package that depends on `name`, directly or through other @cg packages. */
function dependentsOf(plan: PlannedPackage[], name: string): string[] {
  const found = new Set<string>();
  const queue = [name];
  while (queue.length > 0) {
    const current = queue.shift() as string;
    for (const pkg of plan) {
      if (current in pkg.internal && !found.has(pkg.name)) {
        found.add(pkg.name);
        queue.push(pkg.name);
      }
    }
  }
  return [...found].sort();
}

const bump = (version: string, part: 0 | 1 | 2) =>
  version
    .split(".")
    .map((value, index) => (index < part ? value : index === part ? String(Number(value) + 1) : "0"))
    .join(".");

describe("versioning never splits installs", () => {
  it("releases the pending changesets as a consistent set", () => {
    const scratch = scratchCopy();
    scratches.push(scratch);
    const plan = versionScratch(scratch);
    expect(plan.length).toBeGreaterThanOrEqual(10);
    expect(splitProblems(plan)).toEqual([]);
    for (const pkg of plan) expect(pkg.after, pkg.name).toMatch(/^[1-9]\d*\.\d+\.\d+$/);
  });

  it("a minor change to @cg/schema: schema gets a minor, every dependent stays satisfied", () => {
    const scratch = releasedScratch();
    addChangeset(scratch, "schema-new-field", { "@cg/schema": "minor" }, "Reads a new optional field.");
    const plan = versionScratch(scratch);
    const schema = find(plan, "@cg/schema");
    expect(schema.after).toBe(bump(schema.before, 1));

    const dependents = dependentsOf(plan, "@cg/schema");
    expect(dependents).toEqual(
      expect.arrayContaining(["@cg/memory", "@cg/parser", "@cg/writer", "@cg/trace"]),
    );
    for (const name of dependents) {
      const pkg = find(plan, name);
      // Nothing of theirs changed, so nothing of theirs is released: the range they were published
      // with (^1.x) already admits the new schema, and so does the one a later release would carry.
      expect(pkg.after, name).toBe(pkg.before);
      const range = pkg.internal["@cg/schema"];
      if (range === undefined) continue;
      expect(satisfies(schema.after, publishedRange(range, schema.before)), `${name} ${range}`).toBe(true);
      expect(satisfies(schema.after, publishedRange(range, schema.after)), `${name} ${range}`).toBe(true);
    }
    expect(splitProblems(plan)).toEqual([]);

    const changelog = readFileSync(join(scratch, "packages/schema/CHANGELOG.md"), "utf8");
    const newest = changelog.split(/^## /m)[1] ?? "";
    expect(newest.startsWith(`${schema.after}\n`)).toBe(true);
    expect(newest).toContain("### Minor Changes\n\n- Reads a new optional field.");
    expect(newest).not.toContain("Dependencies");
  });

  it("a major change to @cg/schema alone is refused; with its dependents majored it is consistent", () => {
    const alone = releasedScratch();
    addChangeset(alone, "schema-breaking", { "@cg/schema": "major" }, "Drops a field.");
    const alonePlan = versionScratch(alone);
    const dependents = dependentsOf(alonePlan, "@cg/schema");
    const problems = splitProblems(alonePlan);
    for (const name of dependents.filter((dependent) => "@cg/schema" in find(alonePlan, dependent).internal))
      expect(problems.join("\n")).toContain(`${name} must too`);

    const together = releasedScratch();
    const majors = Object.fromEntries(["@cg/schema", ...dependents].map((name) => [name, "major"]));
    addChangeset(together, "schema-breaking", majors, "Drops a field.");
    const plan = versionScratch(together);
    expect(splitProblems(plan)).toEqual([]);
    const schema = find(plan, "@cg/schema");
    for (const name of dependents) {
      const pkg = find(plan, name);
      expect(pkg.after, name).toBe(bump(pkg.before, 0));
      const range = pkg.internal["@cg/schema"];
      if (range !== undefined) expect(publishedRange(range, schema.after)).toBe(`^${schema.after}`);
    }
    // One "Dependencies" line per release, each dependency named once.
    const parserLog =
      readFileSync(join(together, "packages/parser/CHANGELOG.md"), "utf8").split(/^## /m)[1] ?? "";
    expect(parserLog.match(/^- Dependencies:/gm)).toHaveLength(1);
    expect(parserLog.match(/@cg\/schema@/g)).toHaveLength(1);
  });
});
