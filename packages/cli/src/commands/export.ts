import { UsageError } from "../cli-error.js";
import type { Command } from "../command.js";
import { ExitCode } from "../exit-codes.js";
import { escapeControl } from "../format/escape-control.js";
import { booleanOption, choiceOption, stringOption } from "../parse-command-args.js";
import { progressLine, reportRejected } from "../trace-set-input.js";

export const exportCommand: Command = {
  name: "export",
  summary: "many traces to a Hive-partitioned Parquet dataset (Spark, Trino, ClickHouse, DuckDB)",
  arguments: [
    { name: "inputs...", description: "trace files, folders (every .jsonl below) and glob patterns" },
  ],
  options: {
    to: { type: "string", valueName: "FORMAT", description: "required: parquet" },
    output: { type: "string", short: "o", valueName: "DIR", description: "required: the dataset folder" },
    "partition-by": {
      type: "string",
      valueName: "COLUMN",
      description: "run_id (default), or correlation_id (then run_id below it)",
    },
    strict: {
      type: "boolean",
      description: "fail on the first trace that does not parse instead of skipping it",
    },
  },
  help: `Writes <DIR>/<table>/run=<name>/<generation>-0.parquet (zstd) for every table, with the exact
run id (and correlation id) as columns in the files, and a _cg_dataset.json naming the layout
(cg-dataset/2) and every file. Exporting into an existing dataset adds new runs and replaces runs
that are already there, as one transaction: until the new files are complete and flushed the old
dataset reads as it was, then one rename of _cg_dataset.json makes the new one visible; a killed
or failed export leaves the old dataset, and the next export removes what it left.
Read it back with: cg-trace sql "<query>" <DIR>.

Traces that do not parse are skipped with one "skipped file:line: …" line each on stderr.
Exit codes: 0 written, 2 usage error, no traces, every trace skipped, a dataset of another layout,
a failed export (one line naming the step; the dataset unchanged) or (with --strict) a trace that
does not parse.`,
  async run(args, context) {
    choiceOption(args, "export", "to", ["parquet"] as const);
    const output = stringOption(args, "output");
    if (output === undefined) throw new UsageError({ message: "export: -o DIR is required" });
    const partitionBy = choiceOption(
      args,
      "export",
      "partition-by",
      ["run_id", "correlation_id"] as const,
      "run_id",
    );
    const { exportParquet } = await import("@cg/sql");
    const progress = progressLine(context, "exporting");
    let report: Awaited<ReturnType<typeof exportParquet>>;
    try {
      report = await exportParquet(args.positionals, output, {
        partitionBy,
        strict: booleanOption(args, "strict"),
        ...(progress.onProgress === undefined ? {} : { onProgress: progress.onProgress }),
      });
    } finally {
      progress.end();
    }
    reportRejected(report, context);
    if (report.cleanupError !== undefined) {
      context.stderr(
        `cg-trace: warning: exported, but left files the next export removes: ${escapeControl(report.cleanupError)}\n`,
      );
    }
    const replaced = report.replaced.length === 0 ? "" : ` (${report.replaced.length} replaced)`;
    const skipped = report.rejected.length === 0 ? "" : `, ${report.rejected.length} skipped`;
    context.stdout(
      `exported ${report.runs.length} run${report.runs.length === 1 ? "" : "s"}${replaced}${skipped} to ${escapeControl(report.outDir)}\n`,
    );
    for (const [table, rows] of Object.entries(report.rows)) context.stdout(`  ${table}: ${rows} rows\n`);
    return ExitCode.Ok;
  },
};
