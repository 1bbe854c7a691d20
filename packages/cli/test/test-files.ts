import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fixturesDir } from "@cg/tooling-vitest";
import { afterAll } from "vitest";

// Files the cli tests share: the golden trace they read, and a scratch folder per test file.

/** The shared golden training trace. */
export const golden = join(fixturesDir, "valid/golden-train.jsonl");

/** A new folder under the system's temporary folder, removed after the calling file's last test. */
export function scratchDirForFile(prefix: string): string {
  const directory = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));
  return directory;
}
