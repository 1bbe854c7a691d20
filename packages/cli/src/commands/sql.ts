import { UsageError } from "../cli-error.js";
import type { Command } from "../command.js";
import { ExitCode } from "../exit-codes.js";
import { followSymlinksOption, globOption } from "../option-specs.js";
import { booleanOption } from "../parse-command-args.js";
import { openInputs } from "../trace-set-input.js";
import { renderRowsCsv, renderRowsJson, renderRowsTable } from "../views/render-rows.js";

export const sqlCommand: Command = {
  name: "sql",
  summary: "one SQL query over many traces (DuckDB) or an exported Parquet dataset",
  arguments: [
    { name: "query", description: "one SQL statement (left out with --schema)" },
    {
      name: "inputs...",
      description: "trace files, folders (every .jsonl below) or one dataset folder; patterns with --glob",
      optional: true,
    },
  ],
  options: {
    json: { type: "boolean", description: '{"columns": [...], "rows": [{...}]}; 64-bit integers exact' },
    csv: { type: "boolean", description: "CSV with a header row (NULL is an empty field)" },
    schema: { type: "boolean", description: "list the tables and views with their columns instead" },
    strict: {
      type: "boolean",
      description: "fail on the first trace that does not parse instead of skipping it",
    },
    glob: globOption,
    "follow-symlinks": followSymlinksOption,
    "allow-multiple-statements": {
      type: "boolean",
      description: "run several ;-separated statements in order and print the last one's rows",
    },
    "unsafe-allow-external-access": {
      type: "boolean",
      description: "lift the sandbox: the query may read and write any file, ATTACH, INSTALL, SET",
    },
  },
  help: `Tables: runs, spans, ops, tensors, memory, device_memory, gradients, edges (every row has run_id).
Views:  op_stats, step_times, rank_skew, memory_peaks. The columns: cg-trace sql --schema <inputs>.

Examples:
  cg-trace sql "SELECT op_name, sum(total_ns) FROM op_stats GROUP BY ALL ORDER BY 2 DESC" runs/
  cg-trace sql "SELECT * FROM rank_skew ORDER BY max_over_median DESC LIMIT 5" 'ranks/*.jsonl' --glob --csv
  cg-trace sql --schema cg-dataset/

Paths are literal: run[1].jsonl is that file, a folder is what is below it. A folder's symbolic
links that lead out of it are skipped with a "skipped" line (--follow-symlinks follows them).

Sandbox: the query sees the tables and views, nothing else. DuckDB's external access is off and
its configuration locked: no other file (read_text, read_csv, COPY ... TO, ATTACH, EXPORT), no
network, no INSTALL or LOAD, no SET, RESET or PRAGMA of a setting. Allowed: one statement (more
with --allow-multiple-statements) that reads (SELECT, WITH, DESCRIBE, SHOW, SUMMARIZE, EXPLAIN) or
changes the in-memory catalog (CREATE, INSERT, UPDATE, DELETE, DROP, ALTER). A dataset's Parquet
files stay readable. --unsafe-allow-external-access lifts the sandbox, for SQL you trust.

Traces that do not parse are skipped with one "skipped file:line: …" line each on stderr.
Exit codes: 0 printed, 2 usage error, a query error or refused statement, no traces, every trace
rejected, or (with --strict) a trace that does not parse.`,
  async run(args, context) {
    const schema = booleanOption(args, "schema");
    const [query, ...rest] = args.positionals;
    const inputs = schema ? args.positionals : rest;
    if (inputs.length === 0) {
      throw new UsageError({ message: "sql: give at least one trace, folder, glob or dataset folder" });
    }
    if (booleanOption(args, "json") && booleanOption(args, "csv")) {
      throw new UsageError({ message: "sql: --json and --csv exclude each other" });
    }
    const database = await openInputs(
      inputs,
      {
        strict: booleanOption(args, "strict"),
        glob: booleanOption(args, "glob"),
        followSymlinks: booleanOption(args, "follow-symlinks"),
        allowExternalAccess: booleanOption(args, "unsafe-allow-external-access"),
      },
      context,
    );
    try {
      if (schema) {
        const described = await database.describe();
        if (booleanOption(args, "json")) {
          context.stdout(
            renderRowsJson({ columns: [{ name: "tables", type: "JSON" }], rows: [[described]] }),
          );
          return ExitCode.Ok;
        }
        for (const entry of described) {
          context.stdout(`${entry.kind} ${entry.name}\n`);
          for (const column of entry.columns) context.stdout(`  ${column.name}  ${column.type}\n`);
        }
        return ExitCode.Ok;
      }
      const result = await database.query(query as string, {
        multipleStatements: booleanOption(args, "allow-multiple-statements"),
      });
      if (booleanOption(args, "json")) context.stdout(renderRowsJson(result));
      else if (booleanOption(args, "csv")) context.stdout(renderRowsCsv(result));
      else context.stdout(renderRowsTable(result));
      return ExitCode.Ok;
    } finally {
      database.close();
    }
  },
};
