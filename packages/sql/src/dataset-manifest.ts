// `_cg_dataset.json`: the record at a dataset's root of the layout version, the partitioning and
// every table's columns, and (layout cg-dataset/2) the one list of the files that make up the
// dataset: each run's files in its partition folders, and table-level files at a table folder's top
// (the runs table, one row per run, is one file of every run, so that the fleet's index is one read). Readers check the version before they trust the layout; a cg-dataset/2 reader reads the
// files the manifest names and nothing else, so files an unfinished export left are never read.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomic } from "./durable-fs.js";
import { isPartitionFolder, type PartitionColumn } from "./partition-folder.js";
import { SqlError } from "./sql-error.js";
import { DATASET_LAYOUT, DATASET_LAYOUT_V1, TABLES, type TableName } from "./tables.js";

export const MANIFEST_FILE = "_cg_dataset.json";

export type PartitionBy = "run_id" | "correlation_id";

export interface ManifestColumn {
  name: string;
  type: string;
  nullable: boolean;
}

/** One partition of a cg-dataset/2 dataset: a run, with its exact values and its files. */
export interface DatasetPartition {
  run_id: string;
  /** Present when the dataset is partitioned by correlation id. */
  correlation_id?: string;
  /** Folder below each table's folder: `run=…` or `correlation=…/run=…`. */
  path: string;
  /** File names in `<table>/<path>/`, per table that has rows of this run. */
  files: Partial<Record<TableName, string[]>>;
}

export interface DatasetManifest {
  layout: string;
  /** Hive partition columns of every table, outermost first. */
  partition_by: PartitionColumn[];
  tables: { name: string; columns: ManifestColumn[] }[];
  /** cg-dataset/2: the export that wrote this manifest, `g<counter>-<random>`. */
  generation?: string;
  /** cg-dataset/2: every partition and its files; absent in cg-dataset/1 (read by listing). */
  partitions?: DatasetPartition[];
  /**
   * cg-dataset/2: file names in `<table>/`, per table whose rows of every run are in one file (the
   * runs table, since this version). A manifest written before it has none: its runs are in the
   * partitions. A table's rows are those of its partition files and its table-level files together.
   */
  table_files?: Partial<Record<TableName, string[]>>;
}

/** The table whose rows, one per run, are written as one file of the whole dataset by each export. */
export const INDEX_TABLE: TableName = "runs";

/** A data file's name: the generation that wrote it, then DuckDB's file counter. */
export const DATA_FILE = /^g[0-9]{6,}-[0-9a-f]{8}-[0-9]+\.parquet$/;
export const GENERATION = /^g[0-9]{6,}-[0-9a-f]{8}$/;

export function partitionColumns(partitionBy: PartitionBy): PartitionColumn[] {
  return partitionBy === "run_id" ? ["run_id"] : ["correlation_id", "run_id"];
}

/** The columns in a table's files: its own, plus `correlation_id` when partitioned by it. */
export function fileColumns(tableName: TableName, partitionBy: readonly string[]): ManifestColumn[] {
  const table = TABLES.find((candidate) => candidate.name === tableName);
  const columns = (table?.columns ?? []).map(({ name, type, nullable }) => ({ name, type, nullable }));
  if (partitionBy.includes("correlation_id") && !columns.some((column) => column.name === "correlation_id")) {
    columns.push({ name: "correlation_id", type: "VARCHAR", nullable: false });
  }
  return columns;
}

export function manifestFor(
  partitionBy: PartitionBy,
  generation: string,
  partitions: DatasetPartition[],
  tableFiles: Partial<Record<TableName, string[]>>,
): DatasetManifest {
  const columns = partitionColumns(partitionBy);
  return {
    layout: DATASET_LAYOUT,
    partition_by: columns,
    tables: TABLES.map((table) => ({ name: table.name, columns: fileColumns(table.name, columns) })),
    generation,
    partitions,
    table_files: tableFiles,
  };
}

function layoutError(path: string, detail: string): SqlError {
  return new SqlError({ message: `${path}: ${detail}`, code: "dataset_layout", file: path });
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}

/** Checks the partitions of a cg-dataset/2 manifest: names it holds must stay inside the dataset. */
function checkPartitions(path: string, manifest: DatasetManifest): void {
  if (typeof manifest.generation !== "string" || !GENERATION.test(manifest.generation)) {
    throw layoutError(path, "generation missing or malformed");
  }
  if (!Array.isArray(manifest.partitions)) throw layoutError(path, "partitions missing");
  const byCorrelation = manifest.partition_by.length === 2;
  for (const [index, partition] of manifest.partitions.entries()) {
    const where = `partitions[${index}]`;
    if (typeof partition?.run_id !== "string") throw layoutError(path, `${where}.run_id is not a string`);
    if (byCorrelation && typeof partition.correlation_id !== "string") {
      throw layoutError(path, `${where}.correlation_id is not a string`);
    }
    const folders = typeof partition.path === "string" ? partition.path.split("/") : [];
    const keys: PartitionColumn[] = byCorrelation ? ["correlation_id", "run_id"] : ["run_id"];
    if (
      folders.length !== keys.length ||
      !keys.every((key, at) => isPartitionFolder(key, folders[at] ?? ""))
    ) {
      throw layoutError(path, `${where}.path ${JSON.stringify(partition.path)} is not a partition folder`);
    }
    checkFiles(path, `${where}.files`, partition.files ?? {});
  }
  if (manifest.table_files !== undefined) checkFiles(path, "table_files", manifest.table_files);
}

/** Checks a table-to-file-names record: known tables, and names of data files only (no folders). */
function checkFiles(path: string, where: string, files: unknown): void {
  if (files === null || typeof files !== "object" || Array.isArray(files)) {
    throw layoutError(path, `${where} is not an object`);
  }
  for (const [table, names] of Object.entries(files)) {
    if (!TABLES.some((candidate) => candidate.name === table)) {
      throw layoutError(path, `${where} names an unknown table ${JSON.stringify(table)}`);
    }
    if (!isStringArray(names) || !names.every((file) => DATA_FILE.test(file))) {
      throw layoutError(path, `${where}.${table} holds a name that is not a data file`);
    }
  }
}

/** The manifest of a dataset folder, `undefined` when the folder has none. */
export async function readManifest(dir: string): Promise<DatasetManifest | undefined> {
  const path = join(dir, MANIFEST_FILE);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw layoutError(path, `cannot read (${(error as Error).message})`);
  }
  let manifest: DatasetManifest;
  try {
    manifest = JSON.parse(text) as DatasetManifest;
  } catch (error) {
    throw layoutError(path, `not JSON (${String(error)})`);
  }
  if (manifest === null || typeof manifest !== "object") throw layoutError(path, "not a JSON object");
  if (manifest.layout !== DATASET_LAYOUT && manifest.layout !== DATASET_LAYOUT_V1) {
    throw layoutError(
      path,
      `dataset layout ${JSON.stringify(manifest.layout)} is not ${DATASET_LAYOUT} or ${DATASET_LAYOUT_V1}, the layouts this version reads`,
    );
  }
  const partitionBy = manifest.partition_by as unknown;
  if (!isStringArray(partitionBy) || !["run_id", "correlation_id,run_id"].includes(partitionBy.join(","))) {
    throw layoutError(path, "partition_by must be [run_id] or [correlation_id, run_id]");
  }
  if (manifest.layout === DATASET_LAYOUT) checkPartitions(path, manifest);
  return manifest;
}

/** Writes the manifest through a flushed temporary file and one rename: the commit of an export. */
export async function writeManifest(dir: string, manifest: DatasetManifest): Promise<void> {
  await writeFileAtomic(
    join(dir, MANIFEST_FILE),
    `${JSON.stringify(manifest, null, 2)}\n`,
    `tmp-${manifest.generation ?? "v1"}`,
  );
}

/** One file of a table named by a cg-dataset/2 manifest, relative to the dataset's root. */
export interface NamedTableFile {
  /** `<table>/<name>` (table-level) or `<table>/<partition path>/<name>`. */
  path: string;
  /** The run of a partition file; absent for a table-level file. */
  run_id?: string;
}

/** Every file of `table` that `manifest` names: its table-level files, then its partition files. */
export function tableFiles(manifest: DatasetManifest | undefined, table: TableName): NamedTableFile[] {
  const files: NamedTableFile[] = (manifest?.table_files?.[table] ?? []).map((name) => ({
    path: `${table}/${name}`,
  }));
  for (const partition of manifest?.partitions ?? []) {
    for (const name of partition.files[table] ?? []) {
      files.push({ path: `${table}/${partition.path}/${name}`, run_id: partition.run_id });
    }
  }
  return files;
}
