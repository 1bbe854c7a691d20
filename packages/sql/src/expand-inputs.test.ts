// A path that exists is that file or folder, whatever its name holds; patterns only with `glob`;
// a folder walk does not leave the folder through symbolic links unless asked.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, test } from "vitest";
import { expandInputs, type SkippedInput } from "./expand-inputs.js";
import { SqlError } from "./sql-error.js";

const workDir = mkdtempSync(join(tmpdir(), "cg-sql-inputs-"));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

let caseNumber = 0;
/** A fresh folder holding `files` (relative paths; folders are made on the way). */
function tree(files: readonly string[]): string {
  caseNumber += 1;
  const root = join(workDir, `case-${caseNumber}`);
  mkdirSync(root);
  for (const file of files) {
    mkdirSync(join(root, file, ".."), { recursive: true });
    writeFileSync(join(root, file), "{}\n");
  }
  return root;
}

describe("literal paths", () => {
  test("run[1].jsonl is that file, not run1.jsonl", async () => {
    const root = tree(["run[1].jsonl", "run1.jsonl", "run?.jsonl", "runx.jsonl"]);
    expect(await expandInputs([join(root, "run[1].jsonl")])).toEqual([join(root, "run[1].jsonl")]);
    expect(await expandInputs([join(root, "run?.jsonl")])).toEqual([join(root, "run?.jsonl")]);
  });

  test("a folder ds* reads its own files, not its siblings'", async () => {
    const root = tree(["ds*/a.jsonl", "dsX/b.jsonl", "ds/c.jsonl", "ds*x/d.jsonl"]);
    expect(await expandInputs([join(root, "ds*")])).toEqual([join(root, "ds*", "a.jsonl")]);
  });

  test("ds[x], {a,b}, a backslash and a leading ! are plain folder names", async () => {
    const names = ["ds[x]", "{a,b}", "back\\slash", "!neg", "(paren)", "a b"];
    const root = tree([...names.map((name) => `${name}/t.jsonl`), "dsx/t.jsonl", "a/t.jsonl", "b/t.jsonl"]);
    for (const name of names)
      expect(await expandInputs([join(root, name)])).toEqual([join(root, name, "t.jsonl")]);
  });

  test("a missing path that looks like a pattern says how to match it", async () => {
    const root = tree(["rank-0.jsonl"]);
    await expect(expandInputs([join(root, "rank-*.jsonl")])).rejects.toThrow(
      `${join(root, "rank-*.jsonl")}: no such file or folder (a pattern? --glob matches it)`,
    );
  });

  test("with glob, a pattern matches; an existing literal path without pattern characters is itself", async () => {
    const root = tree(["rank-0.jsonl", "rank-1.jsonl", "notes.txt", "sub/rank-2.jsonl"]);
    expect(await expandInputs([join(root, "rank-*.jsonl")], { glob: true })).toEqual([
      join(root, "rank-0.jsonl"),
      join(root, "rank-1.jsonl"),
    ]);
    expect(await expandInputs([join(root, "sub")], { glob: true })).toEqual([
      join(root, "sub", "rank-2.jsonl"),
    ]);
  });

  test("a folder walk takes every .jsonl below it, hidden ones too, in path order", async () => {
    const root = tree([
      "b.jsonl",
      "a/z.jsonl",
      "a-b.jsonl",
      ".hidden.jsonl",
      ".git/x.jsonl",
      "n.json",
      "x.JSONL",
    ]);
    expect(await expandInputs([root])).toEqual(
      [".git/x.jsonl", ".hidden.jsonl", "a-b.jsonl", "a/z.jsonl", "b.jsonl"].map((file) => join(root, file)),
    );
  });

  test("an unreadable folder is one error naming it", async () => {
    const root = tree(["locked/a.jsonl"]);
    const notAFolder = join(root, "locked", "a.jsonl", "below");
    const error = await expandInputs([notAFolder]).catch((caught: unknown) => caught);
    expect(SqlError.isInstance(error)).toBe(true);
    expect((error as SqlError).message).toBe(`${notAFolder}: cannot be read (ENOTDIR)`);
    expect((error as SqlError).file).toBe(notAFolder);
  });
});

test("a FIFO is refused as an input and skipped in a folder, never read", async () => {
  const root = tree(["a.jsonl"]);
  const fifo = join(root, "pipe.jsonl");
  execFileSync("mkfifo", [fifo]);
  await expect(expandInputs([fifo])).rejects.toThrow(`${fifo}: not a regular file or folder`);
  const skipped: SkippedInput[] = [];
  expect(await expandInputs([root], { onSkipped: (entry) => skipped.push(entry) })).toEqual([
    join(root, "a.jsonl"),
  ]);
  expect(skipped).toEqual([{ path: fifo, reason: "not a regular file" }]);
});

describe("symbolic links below a folder", () => {
  test("a link out of the folder is skipped and reported, unless followSymlinks", async () => {
    const root = tree(["inside/a.jsonl", "outside/secret.jsonl", "outside/deeper/more.jsonl"]);
    const folder = join(root, "inside");
    symlinkSync(join(root, "outside", "secret.jsonl"), join(folder, "link.jsonl"));
    symlinkSync(join(root, "outside", "deeper"), join(folder, "dir-link"));
    const skipped: SkippedInput[] = [];
    expect(await expandInputs([folder], { onSkipped: (entry) => skipped.push(entry) })).toEqual([
      join(folder, "a.jsonl"),
    ]);
    expect(skipped.map((entry) => entry.path).sort()).toEqual([
      join(folder, "dir-link"),
      join(folder, "link.jsonl"),
    ]);
    expect(skipped[0]?.reason).toBe(`a symbolic link out of ${folder} (--follow-symlinks follows it)`);
    expect(await expandInputs([folder], { followSymlinks: true })).toEqual([
      join(folder, "a.jsonl"),
      join(folder, "dir-link", "more.jsonl"),
      join(folder, "link.jsonl"),
    ]);
  });

  test("a link within the folder is followed, and a link back up does not loop", async () => {
    const root = tree(["a/x.jsonl"]);
    symlinkSync(join(root, "a"), join(root, "a", "loop"));
    symlinkSync(join(root, "a", "x.jsonl"), join(root, "same.jsonl"));
    expect(await expandInputs([root])).toEqual([join(root, "a", "x.jsonl"), join(root, "same.jsonl")]);
    expect(await expandInputs([root], { followSymlinks: true })).toEqual([
      join(root, "a", "x.jsonl"),
      join(root, "same.jsonl"),
    ]);
  });

  test("a pattern does not descend through a link out of the folder unless followSymlinks", async () => {
    const root = tree(["inside/a.jsonl", "outside/deeper/more.jsonl"]);
    symlinkSync(join(root, "outside", "deeper"), join(root, "inside", "dir-link"));
    const pattern = join(root, "inside", "**", "*.jsonl");
    expect(await expandInputs([pattern], { glob: true })).toEqual([join(root, "inside", "a.jsonl")]);
    expect(await expandInputs([pattern], { glob: true, followSymlinks: true })).toEqual([
      join(root, "inside", "a.jsonl"),
      join(root, "inside", "dir-link", "more.jsonl"),
    ]);
  });

  test("a link named as the input itself is what the user asked for", async () => {
    const root = tree(["real/a.jsonl"]);
    symlinkSync(join(root, "real"), join(root, "alias"));
    expect(await expandInputs([join(root, "alias")])).toEqual([join(root, "alias", "a.jsonl")]);
  });
});

/** Characters that mean something to a glob, a shell or a URI, and some that do not. */
const HOSTILE = [..."*?[]{}()!\\,^$+@%#~=;'\" .-_aZ0é日\t"];
const hostileName = fc
  .array(fc.constantFrom(...HOSTILE), { minLength: 1, maxLength: 24 })
  .map((chars) => chars.join(""))
  .filter((name) => name !== "." && name !== "..");

test("any file or folder name is read literally (fast-check)", async () => {
  await fc.assert(
    fc.asyncProperty(hostileName, async (name) => {
      // Decoys a pattern reading of the name would pick up: the name with every special character
      // replaced, with a suffix, and one-character names.
      const plain = name.replace(/[^a-zA-Z0-9]/g, "a");
      const decoys = [plain, `${name}x`, `x${name}`, "a", "x", "ax"].filter((decoy) => decoy !== name);
      const root = tree([
        `${name}.jsonl`,
        `${name}/inner.jsonl`,
        ...decoys.flatMap((decoy) => [`${decoy}.jsonl`, `${decoy}/decoy.jsonl`]),
      ]);
      expect(await expandInputs([join(root, `${name}.jsonl`)])).toEqual([join(root, `${name}.jsonl`)]);
      expect(await expandInputs([join(root, name)])).toEqual([join(root, name, "inner.jsonl")]);
    }),
    { numRuns: 60 },
  );
});
