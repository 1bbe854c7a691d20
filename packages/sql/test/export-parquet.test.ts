// The exported dataset: Hive layout, `_cg_dataset.json`, replace and append, and every file read
// back by two Parquet readers that are not DuckDB (hyparquet in JS, parquet-wasm = Rust arrow-rs).
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { tableFromIPC } from "apache-arrow";
import { parquetReadObjects } from "hyparquet";
import { compressors } from "hyparquet-compressors";
import { readParquet } from "parquet-wasm";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  DATASET_LAYOUT,
  type DatasetManifest,
  exportParquet,
  MANIFEST_FILE,
  openDataset,
  openTraceDatabase,
  partitionFolder,
  SqlError,
  TABLES,
  type TraceDatabase,
} from "../src/index.js";
import type { PartitionColumn } from "../src/partition-folder.js";
import { NON_ASCII_TAG, readableFixtures, SATURATED, writeWriterTrace } from "./trace-fixtures.js";

const workDir = mkdtempSync(join(tmpdir(), "cg-sql-export-"));
const writerTrace = writeWriterTrace(join(workDir, "writer.jsonl"));
const traces = [...readableFixtures, writerTrace];

interface DataFile {
  file: string;
  table: string;
  /** Exact partition values, from the manifest; none for a table-level file (every run). */
  values: Record<string, string>;
}

/** Every data file the manifest names, with its table and exact partition values. */
function manifestFiles(root: string): DataFile[] {
  const manifest = JSON.parse(readFileSync(join(root, MANIFEST_FILE), "utf8")) as DatasetManifest;
  const found: DataFile[] = [];
  for (const [table, names] of Object.entries(manifest.table_files ?? {})) {
    for (const name of names ?? []) found.push({ file: join(root, table, name), table, values: {} });
  }
  for (const partition of manifest.partitions ?? []) {
    const values: Record<string, string> = { run_id: partition.run_id };
    if (partition.correlation_id !== undefined) values.correlation_id = partition.correlation_id;
    for (const [table, names] of Object.entries(partition.files)) {
      for (const name of names ?? [])
        found.push({ file: join(root, table, partition.path, name), table, values });
    }
  }
  return found.sort((left, right) => (left.file < right.file ? -1 : 1));
}

/** Every .parquet below `dir`, named by the manifest or not. */
function parquetBelow(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...parquetBelow(path));
    else if (entry.name.endsWith(".parquet")) found.push(path);
  }
  return found.sort();
}

/** Plain comparable values: bigints stay bigints, arrow vectors and maps become arrays / entries. */
function plain(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === "bigint" || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") return value;
  if (Array.isArray(value)) {
    // DuckDB's maps come back as { key, value } entries.
    return value.map(plain);
  }
  if (typeof value === "object") {
    const object = value as { toArray?: () => unknown[]; toJSON?: () => unknown };
    if (typeof object.toArray === "function" && !(value instanceof Map)) {
      const json = object.toJSON?.();
      if (json !== null && typeof json === "object" && !Array.isArray(json)) {
        return Object.entries(json as Record<string, unknown>).map(([key, entry]) => ({ key, value: entry }));
      }
      return [...object.toArray()].map(plain);
    }
    const keys = Object.keys(value);
    if (keys.length === 2 && "key" in value && "value" in value) {
      // A map entry as DuckDB returns it.
      const entry = value as { key: unknown; value: unknown };
      return { key: entry.key, value: plain(entry.value) };
    }
    return Object.entries(value as Record<string, unknown>).map(([key, entry]) => ({
      key,
      value: plain(entry),
    }));
  }
  return value;
}

function sortRows(rows: unknown[][]): unknown[][] {
  const key = (row: unknown[]) =>
    JSON.stringify(row, (_, value) => (typeof value === "bigint" ? `${value}n` : value));
  return [...rows].sort((left, right) => (key(left) < key(right) ? -1 : key(left) > key(right) ? 1 : 0));
}

async function readWithHyparquet(file: string): Promise<{ columns: string[]; rows: unknown[][] }> {
  const bytes = readFileSync(file);
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  const objects = (await parquetReadObjects({ file: buffer, compressors })) as Record<string, unknown>[];
  const columns = Object.keys(objects[0] ?? {});
  return { columns, rows: objects.map((object) => columns.map((column) => plain(object[column]))) };
}

function readWithArrowRs(file: string): { columns: string[]; rows: unknown[][] } {
  const table = tableFromIPC(readParquet(readFileSync(file)).intoIPCStream());
  const columns = table.schema.fields.map((field) => field.name);
  const rows = table.toArray().map((row) => {
    const json = row.toJSON() as Record<string, unknown>;
    return columns.map((column) => plain(json[column]));
  });
  return { columns, rows };
}

let reference: TraceDatabase;

beforeAll(async () => {
  reference = await openTraceDatabase({ traces });
});
afterAll(() => {
  reference.close();
  rmSync(workDir, { recursive: true, force: true });
});

/** The rows of one file: of one run, or of every run (`undefined`: a table-level file). */
async function expectedFileRows(table: string, runId: string | undefined, columns: string[]) {
  const list = columns.map((column) => `"${column}"`).join(", ");
  // The correlation id of a run is in every table's files when the dataset is partitioned by it.
  const source =
    table !== "runs" && columns.includes("correlation_id")
      ? `(SELECT t.*, r.correlation_id FROM "${table}" t JOIN runs r USING (run_id))`
      : `"${table}"`;
  const where = runId === undefined ? "" : ` WHERE run_id = '${runId.replaceAll("'", "''")}'`;
  const result = await reference.query(`SELECT ${list} FROM ${source}${where}`);
  return result.rows.map((row) => row.map(plain));
}

describe.each(["run_id", "correlation_id"] as const)("partitioned by %s", (partitionBy) => {
  const outDir = join(workDir, `dataset-${partitionBy}`);
  let files: DataFile[] = [];

  beforeAll(async () => {
    const report = await exportParquet(traces, outDir, { partitionBy });
    expect(report.runs.length).toBe(reference.report.runs.length);
    files = manifestFiles(outDir);
  });

  test("Hive layout and the manifest", () => {
    const manifest = JSON.parse(readFileSync(join(outDir, MANIFEST_FILE), "utf8"));
    expect(manifest.layout).toBe(DATASET_LAYOUT);
    expect(manifest.partition_by).toEqual(
      partitionBy === "run_id" ? ["run_id"] : ["correlation_id", "run_id"],
    );
    expect(manifest.tables.map((table: { name: string }) => table.name)).toEqual(
      TABLES.map((table) => table.name),
    );
    const keys = partitionBy === "run_id" ? ["run_id"] : ["correlation_id", "run_id"];
    for (const { file, table, values } of files) {
      expect(TABLES.map((candidate) => candidate.name)).toContain(table);
      if (values.run_id === undefined) continue;
      // Folder names: a safe encoding of the exact values, in the manifest's order.
      const folders = relative(join(outDir, table), file).split(sep).slice(0, -1);
      expect(folders).toEqual(
        keys.map((key) => partitionFolder(key as PartitionColumn, values[key] as string)),
      );
    }
    // The manifest names every file there is; the runs table is one file of every run, at the
    // top of its folder, and every other file is a run's.
    expect(parquetBelow(outDir)).toEqual(files.map((entry) => entry.file));
    expect(manifest.table_files).toEqual({ runs: [`${manifest.generation}-0.parquet`] });
    expect(files.filter((entry) => entry.table === "runs").map((entry) => entry.file)).toEqual([
      join(outDir, "runs", `${manifest.generation}-0.parquet`),
    ]);
    expect(files.filter((entry) => entry.table !== "runs").every((entry) => entry.values.run_id)).toBe(true);
  });

  test("every file read by hyparquet and by parquet-wasm equals the tables", async () => {
    expect(files.length).toBeGreaterThan(reference.report.runs.length);
    for (const { file, table, values } of files) {
      const runId = values.run_id;
      const hyparquet = await readWithHyparquet(file);
      const arrowRs = readWithArrowRs(file);
      const tableColumns = TABLES.find((candidate) => candidate.name === table)?.columns ?? [];
      // Every column of the table, and the exact partition values (correlation_id appended).
      const inFile = tableColumns.map((column) => column.name);
      if ("correlation_id" in values && !inFile.includes("correlation_id")) inFile.push("correlation_id");
      expect(hyparquet.columns, file).toEqual(inFile);
      expect(arrowRs.columns, file).toEqual(inFile);
      const expected = sortRows(await expectedFileRows(table, runId, inFile));
      expect(sortRows(hyparquet.rows), `${file} (hyparquet)`).toEqual(expected);
      expect(sortRows(arrowRs.rows), `${file} (parquet-wasm)`).toEqual(expected);
    }
  });

  test("a saturated u64, a non-ASCII tag and an absent optional field survive both readers", async () => {
    const runDir = files.filter((entry) => entry.values.run_id === "writer-run-1");
    const ops = runDir.find((entry) => entry.table === "ops")?.file as string;
    const runs = files.find((entry) => entry.table === "runs")?.file as string;
    for (const read of [readWithHyparquet, readWithArrowRs]) {
      const opRows = await read(ops);
      const name = opRows.columns.indexOf("op_name");
      const huge = opRows.rows.find((row) => row[name] === "huge") as unknown[];
      expect(huge[opRows.columns.indexOf("duration_ns")]).toBe(SATURATED);
      expect(huge[opRows.columns.indexOf("storage_bytes")]).toBe(SATURATED);
      expect(huge[opRows.columns.indexOf("output")]).toBeNull();
      const runRows = await read(runs);
      const writerRun = runRows.rows.find(
        (row) => row[runRows.columns.indexOf("run_id")] === "writer-run-1",
      ) as unknown[];
      const tags = writerRun[runRows.columns.indexOf("tags")] as { key: string; value: string }[];
      expect(tags.find((entry) => entry.key === "model")?.value).toBe(NON_ASCII_TAG);
      expect(writerRun[runRows.columns.indexOf("candle_version")]).toBeNull();
    }
  });

  test("DuckDB over the dataset answers like the database read from the traces", async () => {
    const dataset = await openDataset(outDir);
    try {
      for (const name of [...TABLES.map((table) => table.name), "op_stats", "memory_peaks", "step_times"]) {
        const sql = `SELECT * FROM "${name}" ORDER BY ALL`;
        expect((await dataset.query(sql)).rows, name).toEqual((await reference.query(sql)).rows);
      }
    } finally {
      dataset.close();
    }
  });
});

test("re-exporting a run replaces it and a new run is added beside the others", async () => {
  const outDir = join(workDir, "replace");
  const first = await exportParquet([writerTrace], outDir);
  expect(first.replaced).toEqual([]);
  const other = writeWriterTrace(join(workDir, "writer-2.jsonl"), "writer-run-2");
  const second = await exportParquet([writerTrace, other], outDir);
  expect(second.replaced).toEqual(["writer-run-1"]);
  const dataset = await openDataset(outDir);
  try {
    const counts = await dataset.query("SELECT run_id, count(*) FROM ops GROUP BY run_id ORDER BY run_id");
    expect(counts.rows).toEqual([
      ["writer-run-1", 2n],
      ["writer-run-2", 2n],
    ]);
  } finally {
    dataset.close();
  }
});

test("another layout version or partitioning is refused with a clear message", async () => {
  const outDir = join(workDir, "other-layout");
  mkdirSync(outDir, { recursive: true });
  writeFileSync(
    join(outDir, MANIFEST_FILE),
    JSON.stringify({ layout: "cg-dataset/3", partition_by: ["run_id"] }),
  );
  await expect(openDataset(outDir)).rejects.toThrow(
    /dataset layout "cg-dataset\/3" is not cg-dataset\/2 or cg-dataset\/1/,
  );
  await expect(exportParquet([writerTrace], outDir)).rejects.toThrow(SqlError);
  const byRun = join(workDir, "by-run");
  await exportParquet([writerTrace], byRun);
  await expect(exportParquet([writerTrace], byRun, { partitionBy: "correlation_id" })).rejects.toThrow(
    /partitioned by run_id, not correlation_id, run_id/,
  );
  await expect(openDataset(workDir)).rejects.toThrow(/no _cg_dataset\.json/);
});
