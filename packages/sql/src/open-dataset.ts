// A Parquet dataset written by `exportParquet`, opened in DuckDB: every table becomes a view over
// its Parquet files (Hive partitions give back `run_id` and `correlation_id`), with the same
// ready-made views as a database read from traces.
import { resolve } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { glob } from "tinyglobby";
import { MANIFEST_FILE, readManifest } from "./dataset-manifest.js";
import { SqlError } from "./sql-error.js";
import { createTableSql, quoteIdentifier, quoteLiteral, TABLES } from "./tables.js";
import { TraceDatabase } from "./trace-database.js";
import { createViewsSql } from "./views.js";

/** Opens an exported dataset folder for queries (read only: the Parquet files are not changed). */
export async function openDataset(dir: string): Promise<TraceDatabase> {
  const root = resolve(dir);
  const manifest = await readManifest(root);
  if (manifest === undefined) {
    throw new SqlError({
      message: `${root}: no ${MANIFEST_FILE}, so not a dataset`,
      code: "dataset_layout",
      file: root,
    });
  }
  const hiveTypes = manifest.partition_by.map((column) => `${quoteLiteral(column)}: VARCHAR`).join(", ");
  const instance = await DuckDBInstance.create(":memory:");
  const connection = await instance.connect();
  try {
    for (const table of TABLES) {
      const files = await glob(`${table.name}/**/*.parquet`, { cwd: root, onlyFiles: true });
      if (files.length === 0) {
        // No run had such events: an empty table with the layout's columns.
        await connection.run(createTableSql(table));
        continue;
      }
      const columns = table.columns.map((column) => quoteIdentifier(column.name)).join(", ");
      const pattern = quoteLiteral(`${root}/${table.name}/**/*.parquet`);
      await connection.run(
        `CREATE VIEW ${quoteIdentifier(table.name)} AS SELECT ${columns} FROM read_parquet(${pattern}, ` +
          `hive_partitioning = true, hive_types = {${hiveTypes}})`,
      );
    }
    for (const statement of createViewsSql()) await connection.run(statement);
  } catch (error) {
    connection.closeSync();
    instance.closeSync();
    throw error;
  }
  return new TraceDatabase(instance, connection, { runs: [], rejected: [] });
}
