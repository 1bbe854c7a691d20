// The conformance fixtures are data with a manifest: a fixture that changes without its manifest's
// digest, a file nobody listed, or an entry whose file is gone fails here.
import { cpSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
// @ts-expect-error the digest tool is a plain ES module script without type declarations
import {
  checkFixtureDigests,
  defaultFixturesDir,
  updateFixtureDigests,
} from "../scripts/fixture-digests.mjs";

const check = checkFixtureDigests as (dir?: string) => string[];
const update = updateFixtureDigests as (dir?: string) => string[];

const copies: string[] = [];
function copyOfFixtures(): string {
  const dir = mkdtempSync(join(tmpdir(), "cg-fixtures-"));
  copies.push(dir);
  cpSync(defaultFixturesDir as string, dir, { recursive: true });
  return dir;
}
afterEach(() => {
  for (const dir of copies.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("fixture manifest digests", () => {
  it("match every fixture in the repository", () => {
    expect(check()).toEqual([]);
  });

  it("catch a fixture whose bytes changed without its manifest, and update writes the new digest", () => {
    const dir = copyOfFixtures();
    const file = join(dir, "valid", "blank-lines-crlf.jsonl");
    // The change a line-ending conversion makes: CRLF becomes LF.
    writeFileSync(file, readFileSync(file, "utf8").replaceAll("\r\n", "\n"));
    const problems = check(dir);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(
      /^manifest\.json fixtures\[\d+\] \(valid\/blank-lines-crlf\.jsonl\): sha256 is /,
    );

    expect(update(dir)).toEqual(["valid/blank-lines-crlf.jsonl"]);
    expect(check(dir)).toEqual([]);
    // Only the digest changed: the manifest's expectations are kept as written.
    const before = JSON.parse(readFileSync(join(defaultFixturesDir, "manifest.json"), "utf8"));
    const after = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
    for (const [index, entry] of after.fixtures.entries()) {
      const { sha256: _a, ...rest } = entry;
      const { sha256: _b, ...restBefore } = before.fixtures[index];
      expect(rest).toEqual(restBefore);
    }
  });

  it("catch a fixture without a manifest entry and an entry without its file", () => {
    const dir = copyOfFixtures();
    writeFileSync(join(dir, "invalid", "n99-new-case.jsonl"), "{}\n");
    unlinkSync(join(dir, "health", "h01-measurement-count.jsonl"));
    const problems = check(dir);
    expect(problems).toContain("invalid/n99-new-case.jsonl: not listed in manifest.json");
    expect(
      problems.some((line) => /\(health\/h01-measurement-count\.jsonl\): the file is missing$/.test(line)),
    ).toBe(true);
  });
});
