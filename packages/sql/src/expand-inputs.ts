// Turns what a user names (files, folders, glob patterns) into trace files, in a stable order.
import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { glob, isDynamicPattern } from "tinyglobby";
import { SqlError } from "./sql-error.js";

/** Files a folder contributes: every `.jsonl` below it. */
const TRACE_PATTERN = "**/*.jsonl";

export async function expandInputs(inputs: readonly string[]): Promise<string[]> {
  if (inputs.length === 0) throw new SqlError({ message: "no traces given", code: "no_traces" });
  const files = new Set<string>();
  for (const input of inputs) {
    if (isDynamicPattern(input)) {
      const matches = await glob(input, { absolute: true, onlyFiles: true, expandDirectories: false });
      if (matches.length === 0) {
        throw new SqlError({
          message: `${input}: the pattern matches no file`,
          code: "no_traces",
          file: input,
        });
      }
      for (const match of matches.sort()) files.add(resolve(match));
      continue;
    }
    const info = await stat(input).catch(() => undefined);
    if (info === undefined) {
      throw new SqlError({ message: `${input}: no such file or folder`, code: "not_found", file: input });
    }
    if (info.isDirectory()) {
      const matches = await glob(TRACE_PATTERN, { cwd: input, absolute: true, onlyFiles: true });
      if (matches.length === 0) {
        throw new SqlError({
          message: `${input}: the folder holds no .jsonl trace`,
          code: "no_traces",
          file: input,
        });
      }
      for (const match of matches.sort()) files.add(resolve(match));
    } else {
      files.add(resolve(input));
    }
  }
  return [...files];
}
