// Traces to a Hive-partitioned Parquet dataset through DuckDB's own Parquet writer (zstd). Every
// table is written as `<out>/<table>/[correlation_id=<c>/]run_id=<r>/data_0.parquet`; a run that is
// already in the folder is replaced (its partition folders are removed first), new runs are added.
import { mkdir, readdir, rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import {
  type DatasetManifest,
  manifestFor,
  type PartitionBy,
  partitionColumns,
  readManifest,
  writeManifest,
} from "./dataset-manifest.js";
import { expandInputs } from "./expand-inputs.js";
import type { IngestProgress } from "./ingest-progress.js";
import { SqlError } from "./sql-error.js";
import { quoteIdentifier, quoteLiteral, TABLES } from "./tables.js";
import { createSchema, INGEST_SETTINGS, type IngestReport, ingestTraces } from "./trace-database.js";

export interface ExportParquetOptions {
  /** Hive partitioning: `run_id` (default), or `correlation_id` then `run_id`. */
  partitionBy?: PartitionBy;
  /** Fail on the first invalid trace instead of leaving it out (default false). */
  strict?: boolean;
  /** Called after each trace is read. */
  onProgress?: (progress: IngestProgress) => void;
}

export interface ExportReport extends IngestReport {
  outDir: string;
  /** Run ids whose earlier export was replaced. */
  replaced: string[];
  /** Rows written per table. */
  rows: Record<string, number>;
}

/** Names of the partition folders below `dir` whose decoded `run_id` value is in `runIds`. */
async function runFolders(dir: string, depth: number, runIds: ReadonlySet<string>): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const found: string[] = [];
  for (const entry of entries) {
    if (!entry.isDirectory()) continue;
    const path = join(dir, entry.name);
    if (depth > 1) {
      for (const folder of await runFolders(path, depth - 1, runIds)) found.push(folder);
    } else if (entry.name.startsWith("run_id=")) {
      // DuckDB escapes partition values like a URI component.
      const value = decodeURIComponent(entry.name.slice("run_id=".length));
      if (runIds.has(value)) found.push(path);
    }
  }
  return found;
}

function samePartitioning(existing: DatasetManifest, wanted: string[]): boolean {
  return existing.partition_by.join("/") === wanted.join("/");
}

/**
 * Reads traces through the parser and writes them as a Parquet dataset to `outDir`, with a
 * `_cg_dataset.json` recording the layout (`cg-dataset/1`).
 */
export async function exportParquet(
  traces: readonly string[],
  outDir: string,
  options: ExportParquetOptions = {},
): Promise<ExportReport> {
  const partitionBy = options.partitionBy ?? "run_id";
  const partitions = partitionColumns(partitionBy);
  const root = resolve(outDir);
  const existing = await readManifest(root);
  if (existing !== undefined && !samePartitioning(existing, partitions)) {
    throw new SqlError({
      message: `${root} is partitioned by ${existing.partition_by.join(", ")}, not ${partitions.join(", ")}`,
      code: "dataset_layout",
      file: root,
    });
  }
  const files = await expandInputs(traces);
  const instance = await DuckDBInstance.create(":memory:", { ...INGEST_SETTINGS });
  const connection = await instance.connect();
  try {
    await createSchema(connection);
    const ingestOptions: Parameters<typeof ingestTraces>[2] = {};
    if (options.strict !== undefined) ingestOptions.strict = options.strict;
    if (options.onProgress !== undefined) ingestOptions.onProgress = options.onProgress;
    const report = await ingestTraces(connection, files, ingestOptions);
    const runIds = new Set(report.runs.map((run) => run.run_id));
    const replaced = new Set<string>();
    await mkdir(root, { recursive: true });
    for (const table of TABLES) {
      for (const folder of await runFolders(join(root, table.name), partitions.length, runIds)) {
        replaced.add(decodeURIComponent(folder.slice(folder.lastIndexOf("run_id=") + "run_id=".length)));
        await rm(folder, { recursive: true, force: true });
      }
    }
    const rows: Record<string, number> = {};
    for (const table of TABLES) {
      const name = quoteIdentifier(table.name);
      const source =
        partitionBy === "correlation_id" && table.name !== "runs"
          ? `SELECT t.*, r.correlation_id FROM ${name} t JOIN runs r USING (run_id)`
          : `SELECT * FROM ${name}`;
      const target = quoteLiteral(join(root, table.name));
      const result = await connection.run(
        `COPY (${source}) TO ${target} (FORMAT parquet, COMPRESSION zstd, ` +
          `PARTITION_BY (${partitions.map(quoteIdentifier).join(", ")}), OVERWRITE_OR_IGNORE, FILENAME_PATTERN 'data_{i}')`,
      );
      rows[table.name] = Number(result.rowsChanged);
    }
    await writeManifest(root, manifestFor(partitionBy));
    return { ...report, outDir: root, replaced: [...replaced].sort(), rows };
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}
