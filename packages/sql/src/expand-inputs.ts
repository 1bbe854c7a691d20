// Turns what a user names into trace files, in a stable order. A path that exists is that file or
// folder, whatever characters its name holds; patterns are matched only when asked for (`glob`).
import type { Dirent } from "node:fs";
import { readdir, realpath, stat } from "node:fs/promises";
import { join, resolve, sep } from "node:path";
import { glob, isDynamicPattern } from "tinyglobby";
import { SqlError } from "./sql-error.js";

/** A file a folder walk found but left out, and why. */
export interface SkippedInput {
  path: string;
  reason: string;
}

export interface ExpandInputsOptions {
  /** Read each input as a tinyglobby pattern when it has pattern characters (default false). */
  glob?: boolean;
  /** Follow symbolic links below a folder that lead out of it (default false: they are skipped). */
  followSymlinks?: boolean;
  /** Told about each file left out (a symbolic link out of its folder). */
  onSkipped?: (skipped: SkippedInput) => void;
}

/** What a folder contributes: every file below it whose name ends in `.jsonl`, hidden ones too. */
const TRACE_SUFFIX = ".jsonl";

function unreadable(path: string, error: unknown, hint = ""): SqlError {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT") {
    return new SqlError({ message: `${path}: no such file or folder${hint}`, code: "not_found", file: path });
  }
  const reason = code ?? (error instanceof Error ? error.message : String(error));
  return new SqlError({
    message: `${path}: cannot be read (${reason})`,
    code: "unreadable_input",
    file: path,
    cause: error,
  });
}

/** Whether `path` is `root` or below it (both real paths). */
function isWithin(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

/** The `.jsonl` files below `folder`, sorted by path; links out of `root` are skipped unless followed. */
async function walkFolder(folder: string, options: ExpandInputsOptions): Promise<string[]> {
  const root = await realpath(folder).catch((error: unknown) => {
    throw unreadable(folder, error);
  });
  const found: string[] = [];
  // Real paths of the folders entered, so that a link back up does not loop.
  const entered = new Set<string>();
  const visit = async (dir: string): Promise<void> => {
    let entries: Dirent[];
    try {
      entered.add(await realpath(dir));
      entries = await readdir(dir, { withFileTypes: true });
    } catch (error) {
      throw unreadable(dir, error);
    }
    // In name order, so that of two links to one folder the same one is walked every time.
    entries.sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
    for (const entry of entries) {
      const path = join(dir, entry.name);
      let isDirectory = entry.isDirectory();
      let isFile = entry.isFile();
      if (entry.isSymbolicLink()) {
        const target = await realpath(path).catch(() => undefined);
        if (target === undefined) {
          if (entry.name.endsWith(TRACE_SUFFIX))
            options.onSkipped?.({ path, reason: "a broken symbolic link" });
          continue;
        }
        if (!isWithin(root, target) && options.followSymlinks !== true) {
          options.onSkipped?.({
            path,
            reason: `a symbolic link out of ${folder} (--follow-symlinks follows it)`,
          });
          continue;
        }
        const info = await stat(path).catch((error: unknown) => {
          throw unreadable(path, error);
        });
        isDirectory = info.isDirectory();
        isFile = info.isFile();
        if (isDirectory && entered.has(target)) continue;
      }
      if (isDirectory) await visit(path);
      else if (!entry.name.endsWith(TRACE_SUFFIX)) continue;
      // A FIFO or device would block the reader or never end.
      else if (isFile) found.push(path);
      else options.onSkipped?.({ path, reason: "not a regular file" });
    }
  };
  await visit(resolve(folder));
  // Sorted as whole paths (UTF-16 order), as a pattern's matches are.
  return found.sort();
}

async function expandPattern(pattern: string, options: ExpandInputsOptions): Promise<string[]> {
  const matches = await glob(pattern, {
    absolute: true,
    onlyFiles: true,
    expandDirectories: false,
    followSymbolicLinks: options.followSymlinks === true,
  });
  if (matches.length === 0) {
    throw new SqlError({
      message: `${pattern}: the pattern matches no file`,
      code: "no_traces",
      file: pattern,
    });
  }
  return matches.map((match) => resolve(match)).sort();
}

/** The trace files named by `inputs`: files as they are, folders walked, patterns only with `glob`. */
export async function expandInputs(
  inputs: readonly string[],
  options: ExpandInputsOptions = {},
): Promise<string[]> {
  if (inputs.length === 0) throw new SqlError({ message: "no traces given", code: "no_traces" });
  const files = new Set<string>();
  for (const input of inputs) {
    if (options.glob === true && isDynamicPattern(input)) {
      for (const file of await expandPattern(input, options)) files.add(file);
      continue;
    }
    let info: Awaited<ReturnType<typeof stat>>;
    try {
      info = await stat(input);
    } catch (error) {
      const hint = options.glob !== true && isDynamicPattern(input) ? " (a pattern? --glob matches it)" : "";
      throw unreadable(input, error, hint);
    }
    if (info.isFile()) {
      files.add(resolve(input));
      continue;
    }
    if (!info.isDirectory()) {
      throw new SqlError({
        message: `${input}: not a regular file or folder`,
        code: "unreadable_input",
        file: input,
      });
    }
    const found = await walkFolder(input, options);
    if (found.length === 0) {
      throw new SqlError({
        message: `${input}: the folder holds no .jsonl trace`,
        code: "no_traces",
        file: input,
      });
    }
    for (const file of found) files.add(file);
  }
  return [...files];
}
