// A Parquet dataset written by `exportParquet`, opened in DuckDB: every table becomes a view over
// exactly the files its manifest names (cg-dataset/2; the exact partition values are columns in
// the files), or over the files below its folder with the values from the Hive folder names
// (cg-dataset/1), with the same ready-made views as a database read from traces. Every path is
// handed to DuckDB as a literal (see `literalPathSql`), so a folder named `ds*` reads only itself.
import { readdir, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { WORK_PREFIX } from "./dataset-cleanup.js";
import { type DatasetManifest, MANIFEST_FILE, readManifest, tableFiles } from "./dataset-manifest.js";
import { literalPathSql, literalPathText } from "./duckdb-path.js";
import { SqlError } from "./sql-error.js";
import {
  createTableSql,
  DATASET_LAYOUT_V1,
  quoteIdentifier,
  quoteLiteral,
  TABLES,
  type TableName,
} from "./tables.js";
import { TraceDatabase } from "./trace-database.js";
import { createViewsSql } from "./views.js";

/** Whether `dir` is a dataset folder, or the folder of a first export that did not finish. */
export async function isDatasetFolder(dir: string): Promise<boolean> {
  const entries = await readdir(dir).catch(() => [] as string[]);
  return entries.some((name) => name === MANIFEST_FILE || name.startsWith(WORK_PREFIX));
}

/** Every `.parquet` below `dir`, not following symbolic links (cg-dataset/1 has no file list). */
async function parquetBelow(dir: string, found: string[] = []): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    const path = join(dir, entry.name);
    // Into the one list: a spread of a folder's thousands of files would go through the stack.
    if (entry.isDirectory()) await parquetBelow(path, found);
    else if (entry.isFile() && entry.name.endsWith(".parquet")) found.push(path);
  }
  return found;
}

/** Files checked at once: one after another, 1,000 runs' files cost a quarter of a second. */
const STAT_BATCH = 64;

/** The files of one table the manifest names (table-level and partition files), each checked to be there. */
async function namedFiles(root: string, manifest: DatasetManifest, table: TableName): Promise<string[]> {
  const named = tableFiles(manifest, table);
  const files: string[] = [];
  for (let start = 0; start < named.length; start += STAT_BATCH) {
    const batch = named.slice(start, start + STAT_BATCH);
    const infos = await Promise.all(batch.map((file) => stat(join(root, file.path)).catch(() => undefined)));
    for (const [index, file] of batch.entries()) {
      const path = join(root, file.path);
      if (!infos[index]?.isFile()) {
        const owner =
          file.run_id === undefined ? `table ${table}` : `run ${JSON.stringify(file.run_id).slice(0, 200)}`;
        throw new SqlError({
          message: `${path}: named by ${MANIFEST_FILE} (${owner}) but missing`,
          code: "dataset_layout",
          file: path,
        });
      }
      files.push(path);
    }
  }
  return files;
}

async function viewSql(
  root: string,
  manifest: DatasetManifest,
  table: (typeof TABLES)[number],
): Promise<string> {
  const v1 = manifest.layout === DATASET_LAYOUT_V1;
  const files = v1
    ? (await parquetBelow(join(root, table.name))).sort()
    : await namedFiles(root, manifest, table.name);
  // No run had such events: an empty table with the layout's columns.
  if (files.length === 0) return createTableSql(table);
  const columns = table.columns.map((column) => quoteIdentifier(column.name)).join(", ");
  const list = `[${files.map(literalPathSql).join(", ")}]`;
  const hive = v1
    ? `hive_partitioning = true, hive_types = {${manifest.partition_by.map((column) => `${quoteLiteral(column)}: VARCHAR`).join(", ")}}`
    : "hive_partitioning = false";
  return `CREATE VIEW ${quoteIdentifier(table.name)} AS SELECT ${columns} FROM read_parquet(${list}, ${hive})`;
}

export interface OpenDatasetOptions {
  /**
   * Leave the database unsandboxed (default false). Sandboxed, as `openTraceDatabase` leaves a
   * database: `query` reads the dataset's own files through the views and nothing else, with no
   * write, network, extension or setting.
   */
  allowExternalAccess?: boolean;
  /**
   * Read only these tables' files (default: every table). The others are empty tables with the
   * layout's columns, so the ready-made views and any query still bind: for a caller that knows
   * what it reads (`regress` reads `runs` and `ops`), each table left out saves DuckDB binding its
   * files.
   */
  tables?: readonly TableName[];
}

/** Opens an exported dataset folder for queries (read only: the Parquet files are not changed). */
export async function openDataset(dir: string, options: OpenDatasetOptions = {}): Promise<TraceDatabase> {
  const root = resolve(dir);
  const manifest = await readManifest(root);
  if (manifest === undefined) {
    const unfinished = await isDatasetFolder(root);
    throw new SqlError({
      message: unfinished
        ? `${root}: the first export into this folder did not finish (no ${MANIFEST_FILE}); export again`
        : `${root}: no ${MANIFEST_FILE}, so not a dataset`,
      code: "dataset_layout",
      file: root,
    });
  }
  const instance = await DuckDBInstance.create(":memory:");
  const connection = await instance.connect();
  let table: string | undefined;
  try {
    for (const candidate of TABLES) {
      table = candidate.name;
      const read = options.tables === undefined || options.tables.includes(candidate.name);
      await connection.run(read ? await viewSql(root, manifest, candidate) : createTableSql(candidate));
    }
    table = undefined;
    for (const statement of createViewsSql()) await connection.run(statement);
  } catch (error) {
    connection.closeSync();
    instance.closeSync();
    if (SqlError.isInstance(error)) throw error;
    const text = error instanceof Error ? error.message : String(error);
    throw new SqlError({
      message: `${root}: cannot open the dataset${table === undefined ? "" : ` (table ${table})`}: ${text.split("\n")[0]}`,
      code: "dataset_layout",
      file: root,
      cause: error,
    });
  }
  const database = new TraceDatabase(instance, connection, { runs: [], rejected: [] });
  if (!options.allowExternalAccess) {
    try {
      // The views read the dataset's files, so its folder stays readable (not writable: the
      // sandbox refuses COPY and EXPORT).
      await database.sandbox({ readableDirectories: [...new Set([root, literalPathText(root)])] });
    } catch (error) {
      database.close();
      throw error;
    }
  }
  return database;
}
