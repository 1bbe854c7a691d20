// The runs table, one row per run, is the fleet's index: what `regress` and every per-run question
// read first. Read from one Parquet file per run it costs DuckDB a file open and a footer per run
// and column (1,000 runs: ~0.6 s), so each export writes it as one file of every run of the dataset:
// the kept runs' rows, read back from the files the old manifest names, and the new runs' rows.
import { join } from "node:path";
import type { DuckDBConnection } from "@duckdb/node-api";
import { type DatasetManifest, INDEX_TABLE, tableFiles } from "./dataset-manifest.js";
import { literalPathSql } from "./duckdb-path.js";
import { quoteIdentifier, quoteLiteral, TABLES } from "./tables.js";

/**
 * Writes `target`: the index table's rows of the work database (the runs read now) and those of
 * the old dataset at `root` whose runs are not read again (a replaced run's old row is left out),
 * in run id order. Returns the rows written.
 */
export async function writeIndexTableFile(
  connection: DuckDBConnection,
  root: string,
  existing: DatasetManifest | undefined,
  target: string,
  rowGroupRows: number,
): Promise<number> {
  const table = TABLES.find((candidate) => candidate.name === INDEX_TABLE) as (typeof TABLES)[number];
  const columns = table.columns.map((column) => quoteIdentifier(column.name)).join(", ");
  const name = quoteIdentifier(table.name);
  const old = tableFiles(existing, INDEX_TABLE).map((file) => literalPathSql(join(root, file.path)));
  // Written by this layout's exports, so the old files hold the table's columns, exact values in them.
  const kept =
    old.length === 0
      ? ""
      : ` UNION ALL SELECT ${columns} FROM read_parquet([${old.join(", ")}], hive_partitioning = false)
          WHERE run_id NOT IN (SELECT run_id FROM ${name})`;
  const result = await connection.run(
    `COPY (SELECT ${columns} FROM ${name}${kept} ORDER BY run_id) TO ${quoteLiteral(target)} ` +
      `(FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE ${rowGroupRows})`,
  );
  return Number(result.rowsChanged);
}
