// Many traces for the SQL commands: files and folders (patterns with --glob) read into DuckDB by
// @cg/sql (loaded on first use, so the other commands never load DuckDB), or one exported dataset
// folder; either way locked down for the user's SQL unless asked otherwise.
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { CgError } from "@cg/schema/core";
import type { IngestProgress, IngestReport, TableName, TraceDatabase } from "@cg/sql";
import type { CliContext } from "./cli-context.js";
import { CliError } from "./cli-error.js";
import { ExitCode } from "./exit-codes.js";
import { escapeControl } from "./format/escape-control.js";

/** The first line of an error's message: DuckDB's say what is wrong there, then quote the SQL. */
function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split("\n")[0] ?? text;
}

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

export interface OpenInputsOptions {
  /** Fail on the first trace that does not parse. */
  strict: boolean;
  /** Read inputs with pattern characters as patterns. */
  glob: boolean;
  /** Follow symbolic links out of a folder input. */
  followSymlinks: boolean;
  /** Leave DuckDB's external access on and its configuration open. */
  allowExternalAccess: boolean;
  /**
   * The tables a dataset folder's files are read for (default all; the others are empty): for a
   * command that knows its queries. Traces are read whole either way.
   */
  tables?: readonly TableName[];
}

/** Opens the inputs: one dataset folder, or trace files and folders read into DuckDB. */
export async function openInputs(
  inputs: readonly string[],
  options: OpenInputsOptions,
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
    // Sandboxed unless asked: the views read the dataset's files and nothing else.
    const tables = options.tables === undefined ? {} : { tables: options.tables };
    return sql
      .openDataset(first, { allowExternalAccess: options.allowExternalAccess, ...tables })
      .catch((error: unknown) => {
        if (CgError.isInstance(error)) throw error;
        // DuckDB's own failures (a view over files that are not there) are about this folder.
        throw new CliError({
          message: `${first}: ${firstLine(error)}`,
          exitCode: ExitCode.Usage,
          cause: error,
        });
      });
  }
  const progress = progressLine(context, "reading");
  let database: TraceDatabase;
  try {
    database = await sql.openTraceDatabase({
      traces: inputs,
      strict: options.strict,
      glob: options.glob,
      followSymlinks: options.followSymlinks,
      allowExternalAccess: options.allowExternalAccess,
      onSkipped: ({ path, reason }) =>
        context.stderr(`cg-trace: skipped ${escapeControl(`${path}: ${reason}`)}\n`),
      ...(progress.onProgress === undefined ? {} : { onProgress: progress.onProgress }),
    });
  } finally {
    progress.end();
  }
  reportRejected(database.report, context);
  if (database.report.runs.length === 0) {
    // Every trace was refused: an empty result would read as "nothing matched".
    database.close();
    throw new CliError({
      message: `every input was rejected (${database.report.rejected.length} trace${database.report.rejected.length === 1 ? "" : "s"}); nothing to query`,
      exitCode: ExitCode.Usage,
    });
  }
  return database;
}
