// Many traces for the SQL commands: files, folders and globs read into DuckDB by @cg/sql (loaded on
// first use, so the other commands never load DuckDB), or one exported dataset folder.
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import type { IngestProgress, IngestReport, TraceDatabase } from "@cg/sql";
import type { CliContext } from "./cli-context.js";
import { escapeControl } from "./format/escape-control.js";

/** Whether `path` is a dataset folder written by `cg-trace export` (it has `_cg_dataset.json`). */
export function isDatasetFolder(path: string): boolean {
  return existsSync(join(path, "_cg_dataset.json")) && statSync(path).isDirectory();
}

/** A `\r`-rewritten progress line on stderr, shown only when stderr is a terminal. */
export function progressLine(
  context: CliContext,
  verb: string,
): {
  onProgress?: (progress: IngestProgress) => void;
  end: () => void;
} {
  if (!context.stderrIsTty) return { end: () => undefined };
  let shown = false;
  return {
    onProgress: ({ done, total }) => {
      shown = true;
      context.stderr(`\r${verb} traces: ${done}/${total}`);
    },
    end: () => {
      if (shown) context.stderr("\r\u001b[K");
    },
  };
}

/** One `cg-trace: skipped file:line: code: message` line per trace the reader refused. */
export function reportRejected(report: IngestReport, context: CliContext): void {
  for (const rejected of report.rejected) {
    const where = rejected.line === undefined ? rejected.file : `${rejected.file}:${rejected.line}`;
    context.stderr(`cg-trace: skipped ${escapeControl(`${where}: ${rejected.code}: ${rejected.message}`)}\n`);
  }
}

/** Opens the inputs: one dataset folder, or traces (files, folders, globs) read into DuckDB. */
export async function openInputs(
  inputs: readonly string[],
  strict: boolean,
  context: CliContext,
): Promise<TraceDatabase> {
  const sql = await import("@cg/sql");
  const [first] = inputs;
  // A dataset folder, or one whose first export did not finish (openDataset says so).
  if (
    inputs.length === 1 &&
    first !== undefined &&
    (isDatasetFolder(first) || (await sql.isDatasetFolder(first)))
  ) {
    return sql.openDataset(first);
  }
  const progress = progressLine(context, "reading");
  try {
    const database = await sql.openTraceDatabase({
      traces: inputs,
      strict,
      ...(progress.onProgress === undefined ? {} : { onProgress: progress.onProgress }),
    });
    reportRejected(database.report, context);
    return database;
  } finally {
    progress.end();
  }
}
