// Traces to a Parquet dataset (layout cg-dataset/2), as a transaction. The traces are read into a
// DuckDB database file in a work folder inside the dataset (the ingest's bounded path: a 32 MB
// memory limit, rows on disk), written from there as Parquet into the work folder (one file per run
// and table, and the runs table as one file of every run; two tables at a time), flushed, moved
// into the dataset's partition folders (the runs file to the top of its table's folder) under names no manifest holds
// yet, and the folders flushed.
// Only then does one atomic step, the rename of a new `_cg_dataset.json` naming every file of the
// dataset, make them visible; the files of replaced runs are removed after it. Until that rename
// readers see the old dataset exactly; after it, the new one. What a killed or failed export left
// is named by no manifest, so it is never read, and the next export removes it.
import { randomBytes } from "node:crypto";
import { mkdir, rename, rm, rmdir, stat } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { type DuckDBConnection, DuckDBInstance } from "@duckdb/node-api";
import { cleanDataset, WORK_PREFIX } from "./dataset-cleanup.js";
import {
  type DatasetManifest,
  type DatasetPartition,
  INDEX_TABLE,
  manifestFor,
  type PartitionBy,
  partitionColumns,
  readManifest,
  writeManifest,
} from "./dataset-manifest.js";
import { syncPath } from "./durable-fs.js";
import { expandInputs } from "./expand-inputs.js";
import { takeExportLock } from "./export-lock.js";
import { type BeforeStep, describeStep, type ExportStep } from "./export-steps.js";
import { writeIndexTableFile } from "./index-table-file.js";
import type { IngestProgress } from "./ingest-progress.js";
import { FOLDER_KEY, partitionFolderValue } from "./partition-folder.js";
import { SqlError } from "./sql-error.js";
import { DATASET_LAYOUT_V1, quoteIdentifier, quoteLiteral, TABLES, type TableName } from "./tables.js";
import { createSchema, INGEST_SETTINGS, type IngestReport, ingestTraces } from "./trace-database.js";
import { duckdbPathsOf } from "./work-alias.js";

export interface ExportParquetOptions {
  /** Hive partitioning: `run_id` (default), or `correlation_id` then `run_id`. */
  partitionBy?: PartitionBy;
  /** Fail on the first invalid trace instead of leaving it out (default false). */
  strict?: boolean;
  /** Called after each trace is read. */
  onProgress?: (progress: IngestProgress) => void;
  /**
   * Called before each step of the export (see `ExportStep`); what it throws fails the export
   * there, which leaves the old dataset as it was. For fault-injection tests.
   */
  beforeStep?: BeforeStep;
}

export interface ExportReport extends IngestReport {
  outDir: string;
  /** The generation of the committed manifest. */
  generation: string;
  /** Run ids whose earlier export was replaced. */
  replaced: string[];
  /** Rows written per table. */
  rows: Record<string, number>;
  /**
   * Set when removing what the new manifest no longer names failed after the commit: the new
   * dataset is complete and read as it is; the next export removes the rest.
   */
  cleanupError?: string;
}

/**
 * DuckDB settings of the export's work database: in memory, with the ingest's 32 MB buffer pool;
 * blocks beyond it go to the work folder's spill files. DuckDB writes the Parquet files from there
 * row group by row group. A database file instead wrote every row to it and read it back: the same
 * 1 GiB trace exported in 15–17 s against 10–11 s in memory, at the same peak RSS (below 290 MiB)
 * with 64 MB for the Parquet writer (96 MB in memory went above 300 MB).
 */
const EXPORT_MEMORY_LIMIT = "32MB";
const COPY_MEMORY_LIMIT = "64MB";
const ROW_GROUP_ROWS = 61_440;

/** A table writer's failure with the step it failed at (two write at once). */
class LaneFailure {
  step: ExportStep | undefined;
  error: unknown;
}

/** `g<counter>-<random>`: after the committed generation, unique even if two exports race. */
function nextGeneration(existing: DatasetManifest | undefined): string {
  const counter = Number(/^g([0-9]+)-/.exec(existing?.generation ?? "")?.[1] ?? 0) + 1;
  return `g${String(counter).padStart(6, "0")}-${randomBytes(4).toString("hex")}`;
}

function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split("\n")[0] ?? text;
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

function withoutIndexTable(files: DatasetPartition["files"]): DatasetPartition["files"] {
  const { [INDEX_TABLE]: _index, ...rest } = files;
  return rest;
}

/** The partition of each run read, with its exact values and its folder path. */
async function partitionsOf(
  connection: DuckDBConnection,
  columns: readonly string[],
): Promise<Map<string, DatasetPartition>> {
  const reader = await connection.runAndReadAll("SELECT run_id, correlation_id FROM runs ORDER BY run_id");
  const partitions = new Map<string, DatasetPartition>();
  const paths = new Map<string, string>();
  for (const [runId, correlationId] of reader.getRows() as [string, string][]) {
    const runFolder = `${FOLDER_KEY.run_id}=${partitionFolderValue(runId)}`;
    const byCorrelation = columns.length === 2;
    const path = byCorrelation
      ? `${FOLDER_KEY.correlation_id}=${partitionFolderValue(correlationId)}/${runFolder}`
      : runFolder;
    const clash = paths.get(path);
    if (clash !== undefined) {
      throw new SqlError({
        message: `runs ${JSON.stringify(clash)} and ${JSON.stringify(runId)} hash to the same folder ${path}`,
        code: "export_failed",
      });
    }
    paths.set(path, runId);
    const partition: DatasetPartition = byCorrelation
      ? { run_id: runId, correlation_id: correlationId, path, files: {} }
      : { run_id: runId, path, files: {} };
    partitions.set(runId, partition);
  }
  return partitions;
}

/**
 * Writes one table's rows of each run as one Parquet file in the work folder (`<table>/<path>/`),
 * one plain `COPY` per run: DuckDB streams it row group by row group, where a partitioned `COPY`
 * would hold a buffer per open partition (out of memory under the 32 MB limit with a few dozen
 * runs). The run id is a bound parameter, so any string is matched exactly.
 */
async function writeTable(
  connection: DuckDBConnection,
  table: TableName,
  partitions: ReadonlyMap<string, DatasetPartition>,
  dir: string,
  generation: string,
  announce: (step: ExportStep) => Promise<void>,
): Promise<number> {
  const counts = await connection.runAndReadAll(
    `SELECT run_id, count(*) FROM ${quoteIdentifier(table)} GROUP BY run_id ORDER BY run_id`,
  );
  let rows = 0;
  for (const [runId] of counts.getRows() as [string, bigint][]) {
    const partition = partitions.get(runId) as DatasetPartition;
    await announce({ kind: "write", table, partition: partition.path });
    const folder = join(dir, partition.path);
    await mkdir(folder, { recursive: true });
    const name = `${generation}-0.parquet`;
    // The exact correlation id is in every table's files when the dataset is partitioned by it.
    const correlation =
      partition.correlation_id !== undefined && table !== "runs" ? ", $2::VARCHAR AS correlation_id" : "";
    const values = correlation === "" ? [runId] : [runId, partition.correlation_id as string];
    const result = await connection.run(
      `COPY (SELECT *${correlation} FROM ${quoteIdentifier(table)} WHERE run_id = $1) ` +
        `TO ${quoteLiteral(join(folder, name))} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE ${ROW_GROUP_ROWS})`,
      values,
    );
    rows += Number(result.rowsChanged);
    partition.files[table] = [name];
  }
  return rows;
}

/**
 * Reads traces through the parser and writes them as a Parquet dataset to `outDir`, with a
 * `_cg_dataset.json` naming the layout (`cg-dataset/2`) and every file. Runs already in the
 * dataset are replaced, new runs are added; either all of it becomes visible at once or none.
 */
export async function exportParquet(
  traces: readonly string[],
  outDir: string,
  options: ExportParquetOptions = {},
): Promise<ExportReport> {
  const partitionBy = options.partitionBy ?? "run_id";
  const columns = partitionColumns(partitionBy);
  const root = resolve(outDir);
  const beforeStep = options.beforeStep ?? (() => undefined);
  const existing = await readManifest(root);
  if (existing?.layout === DATASET_LAYOUT_V1) {
    throw new SqlError({
      message: `${root}: a ${DATASET_LAYOUT_V1} dataset, which this version reads but does not add to; export into a new folder`,
      code: "dataset_layout",
      file: root,
    });
  }
  if (existing !== undefined && existing.partition_by.join("/") !== columns.join("/")) {
    throw new SqlError({
      message: `${root} is partitioned by ${existing.partition_by.join(", ")}, not ${columns.join(", ")}`,
      code: "dataset_layout",
      file: root,
    });
  }
  const files = await expandInputs(traces);
  const createdRoot = !(await exists(root));
  const generation = nextGeneration(existing);
  const work = join(root, `${WORK_PREFIX}${generation}`);
  const indexFile = `${generation}-0.parquet`;
  let step: ExportStep | undefined;
  const announce = async (next: ExportStep) => {
    step = next;
    await beforeStep(next);
  };
  const removal = (path: string) => announce({ kind: "cleanup", path });
  let unlock: (() => Promise<void>) | undefined;
  /** Set once the lock is held over the manifest read: from then on a failure rolls back. */
  let owned = false;
  let alias: { release: () => Promise<void> } | undefined;
  let committed: DatasetManifest | undefined;
  let report: IngestReport | undefined;
  let replaced: string[] = [];
  const rows: Record<string, number> = {};
  try {
    await mkdir(root, { recursive: true });
    unlock = await takeExportLock(root);
    // Another export may have committed between the read above and the lock: its files are not
    // this export's to remove.
    if ((await readManifest(root))?.generation !== existing?.generation) {
      throw new SqlError({
        message: `${root}: another export committed while this one started; run it again`,
        code: "export_failed",
        file: root,
      });
    }
    owned = true;
    // What an earlier export that was killed left behind.
    await cleanDataset(root, existing, removal);
    await mkdir(join(work, "out"), { recursive: true });
    const workAlias = await duckdbPathsOf(work);
    alias = workAlias;
    const instance = await DuckDBInstance.create(":memory:", {
      ...INGEST_SETTINGS,
      memory_limit: EXPORT_MEMORY_LIMIT,
      temp_directory: join(workAlias.database, "spill"),
    });
    const connection = await instance.connect();
    let partitions: Map<string, DatasetPartition>;
    try {
      await createSchema(connection);
      await announce({ kind: "ingest" });
      const ingestOptions: Parameters<typeof ingestTraces>[2] = {};
      if (options.strict !== undefined) ingestOptions.strict = options.strict;
      if (options.onProgress !== undefined) ingestOptions.onProgress = options.onProgress;
      report = await ingestTraces(connection, files, ingestOptions);
      step = undefined;
      if (report.runs.length === 0) {
        const first = report.rejected[0];
        const why =
          first === undefined
            ? ""
            : `; ${first.file}${first.line === undefined ? "" : `:${first.line}`}: ${first.message}`;
        throw new SqlError({
          message: `every input was rejected (${report.rejected.length} trace${report.rejected.length === 1 ? "" : "s"}${why}): nothing exported to ${root}`,
          code: "no_traces",
          file: root,
        });
      }
      partitions = await partitionsOf(connection, columns);
      for (const old of existing?.partitions ?? []) {
        const clash = [...partitions.values()].find((fresh) => fresh.path === old.path);
        if (clash !== undefined && clash.run_id !== old.run_id) {
          throw new SqlError({
            message: `${root}: runs ${JSON.stringify(old.run_id)} and ${JSON.stringify(clash.run_id)} hash to the same folder ${old.path}`,
            code: "export_failed",
            file: root,
          });
        }
      }
      // The Parquet writer holds a row group of each column before it compresses it, beyond what
      // the ingest needed (4 M ops of one run: out of memory at 32 MB with 122,880-row groups).
      // One thread, a larger limit once the reading thread is gone, and half-size row groups.
      await connection.run(`SET threads = 1`);
      await connection.run(`SET memory_limit = '${COPY_MEMORY_LIMIT}'`);
      // Two tables are written at a time, each on its own connection: a COPY runs on the thread
      // that started it, so the ops and memory tables are encoded on both cores at once.
      const tables = [...TABLES];
      const written = new Map<TableName, number>();
      const writeTables = async (lane: DuckDBConnection): Promise<void> => {
        let laneStep: ExportStep | undefined;
        const announceInLane = async (next: ExportStep) => {
          laneStep = next;
          await announce(next);
        };
        try {
          for (let table = tables.shift(); table !== undefined; table = tables.shift()) {
            const dir = join(workAlias.out, "out", table.name);
            if (table.name === INDEX_TABLE) {
              await announceInLane({ kind: "write-table", table: table.name });
              await mkdir(dir, { recursive: true });
              await writeIndexTableFile(lane, root, existing, join(dir, indexFile), ROW_GROUP_ROWS);
              // One row per run read now (the file holds the kept runs' rows too).
              written.set(table.name, partitions.size);
            } else {
              const count = await writeTable(lane, table.name, partitions, dir, generation, announceInLane);
              written.set(table.name, count);
            }
          }
        } catch (error) {
          // The other lane stops at its next table; the failure is named by this lane's step.
          tables.length = 0;
          throw Object.assign(new LaneFailure(), { step: laneStep, error });
        }
      };
      const second = await instance.connect();
      try {
        const lanes = await Promise.allSettled([writeTables(connection), writeTables(second)]);
        const failed = lanes.find((lane) => lane.status === "rejected");
        if (failed !== undefined) {
          const { step: failedStep, error } = failed.reason as LaneFailure;
          step = failedStep;
          throw error;
        }
        // The report lists the tables in their order, whichever lane finished first.
        for (const table of TABLES) rows[table.name] = written.get(table.name) as number;
      } finally {
        second.closeSync();
      }
    } finally {
      // The work database is thrown away: no checkpoint of it on closing.
      await connection.run("PRAGMA disable_checkpoint_on_shutdown").catch(() => undefined);
      connection.closeSync();
      instance.closeSync();
      await workAlias.release();
    }
    // Flush each file and move it into its partition folder, under a name no manifest holds yet.
    const folders = new Set<string>();
    await announce({ kind: "move-table", table: INDEX_TABLE });
    await mkdir(join(root, INDEX_TABLE), { recursive: true });
    await syncPath(join(work, "out", INDEX_TABLE, indexFile));
    await rename(join(work, "out", INDEX_TABLE, indexFile), join(root, INDEX_TABLE, indexFile));
    folders.add(join(root, INDEX_TABLE));
    for (const table of TABLES) {
      for (const partition of partitions.values()) {
        const names = partition.files[table.name] ?? [];
        if (names.length === 0) continue;
        await announce({ kind: "move", table: table.name, partition: partition.path });
        const staged = join(work, "out", table.name, partition.path);
        const target = join(root, table.name, partition.path);
        await mkdir(target, { recursive: true });
        for (const name of names) {
          await syncPath(join(staged, name));
          await rename(join(staged, name), join(target, name));
        }
        for (let folder = target; folder !== root; folder = dirname(folder)) folders.add(folder);
      }
    }
    await announce({ kind: "sync-folders" });
    // Deepest first: a folder's new entry is durable before its parent's.
    for (const folder of [...folders].sort((left, right) => right.length - left.length))
      await syncPath(folder);
    await syncPath(root);
    // The kept runs' index rows are in the new index file now: their old files of it are not named.
    const kept = (existing?.partitions ?? [])
      .filter((old) => !partitions.has(old.run_id))
      .map((old) => ({ ...old, files: withoutIndexTable(old.files) }));
    replaced = (existing?.partitions ?? [])
      .filter((old) => partitions.has(old.run_id))
      .map((old) => old.run_id)
      .sort();
    const all = [...kept, ...partitions.values()].sort((left, right) =>
      left.path < right.path ? -1 : left.path > right.path ? 1 : 0,
    );
    const manifest = manifestFor(partitionBy, generation, all, { [INDEX_TABLE]: [indexFile] });
    await announce({ kind: "commit" });
    await writeManifest(root, manifest);
    committed = manifest;
  } catch (error) {
    await alias?.release().catch(() => undefined);
    // Without the lock over the manifest read, what is there may be another export's: untouched.
    if (owned) await rollBack(root, work, existing, createdRoot);
    await unlock?.().catch(() => undefined);
    if (SqlError.isInstance(error)) throw error;
    const where = step === undefined ? "" : `${describeStep(step)}: `;
    throw new SqlError({
      message: `export to ${root} failed, the dataset is unchanged: ${where}${firstLine(error)}`,
      code: "export_failed",
      file: root,
      cause: error,
    });
  }
  const result: ExportReport = { ...report, outDir: root, generation, replaced, rows } as ExportReport;
  try {
    await cleanDataset(root, committed, removal);
  } catch (error) {
    result.cleanupError = `${step === undefined ? "" : `${describeStep(step)}: `}${firstLine(error)}`;
  }
  await unlock?.().catch(() => undefined);
  return result;
}

/** After a failure before the commit: nothing of this export stays, the old manifest rules. */
async function rollBack(
  root: string,
  work: string,
  existing: DatasetManifest | undefined,
  createdRoot: boolean,
): Promise<void> {
  try {
    if (createdRoot) {
      await rm(root, { recursive: true, force: true });
      return;
    }
    await rm(work, { recursive: true, force: true });
    await cleanDataset(root, existing, () => undefined);
    if (existing === undefined) {
      // A first export into a folder that was there: no empty table folders left as a dataset.
      for (const table of TABLES) await rmdir(join(root, table.name)).catch(() => undefined);
    }
  } catch {
    // What is left is named by no manifest: never read, and removed by the next export.
  }
}
