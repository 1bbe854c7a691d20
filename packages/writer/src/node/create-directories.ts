import { mkdirSync, statSync } from "node:fs";
import { dirname } from "node:path";

/**
 * Creates `directory` and its missing parents, one level at a time with a single retry per level.
 * Node's `mkdirSync(path, { recursive: true })` loops forever where `mkdir` keeps failing with
 * ENOENT although the parent exists (procfs: `/proc/self/nope/trace.jsonl`); here that second
 * ENOENT is final, so every path that cannot be created fails at once with the system error.
 */
export function createDirectories(directory: string): void {
  try {
    mkdirSync(directory);
    return;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") {
      if (statSync(directory).isDirectory()) return;
      throw error;
    }
    const parent = dirname(directory);
    if (code !== "ENOENT" || parent === directory) throw error;
    createDirectories(parent);
  }
  try {
    mkdirSync(directory);
  } catch (error) {
    // Created meanwhile by someone else is fine; anything else is final.
    if ((error as NodeJS.ErrnoException).code !== "EEXIST" || !statSync(directory).isDirectory()) throw error;
  }
}
