// The runs table as one file of every run: each export writes it whole (kept runs, minus the
// replaced ones, plus the new runs) at the top of `runs/`, the manifest names it, a killed export's
// file is never read and the next export removes it, and a dataset whose runs rows are still in
// its partition folders (written before) reads the same and is rewritten in the new shape.
import { spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  type DatasetManifest,
  type ExportStep,
  exportParquet,
  MANIFEST_FILE,
  openDataset,
  type PartitionBy,
  SqlError,
} from "../src/index.js";
import { namedFiles, parquetFilesBelow, snapshot, tinyTrace } from "./dataset-snapshot.js";
import { writeWriterTrace } from "./trace-fixtures.js";

const here = dirname(fileURLToPath(import.meta.url));
const tsx = pathToFileURL(
  join(dirname(createRequire(import.meta.url).resolve("tsx/package.json")), "dist/esm/index.mjs"),
).href;
const workDir = mkdtempSync(join(tmpdir(), "cg-sql-runs-file-"));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

function traceFile(name: string, text: string): string {
  const path = join(workDir, name);
  writeFileSync(path, text);
  return path;
}

const oldTraces = [
  writeWriterTrace(join(workDir, "a.jsonl"), "run-a"),
  writeWriterTrace(join(workDir, "b.jsonl"), "run-b"),
];
// run-a again under another correlation id (so its row differs), and a new run-c.
const newTraces = [
  traceFile("a2.jsonl", tinyTrace("run-a", "writer/update-9", 2)),
  writeWriterTrace(join(workDir, "c.jsonl"), "run-c"),
];

function manifestOf(root: string): DatasetManifest {
  return JSON.parse(readFileSync(join(root, MANIFEST_FILE), "utf8")) as DatasetManifest;
}

/** The data files at the top of the runs folder. */
function topRunsFiles(root: string): string[] {
  return readdirSync(join(root, "runs"), { withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => entry.name)
    .sort();
}

async function runRows(root: string): Promise<[string, string][]> {
  const dataset = await openDataset(root);
  try {
    const { rows } = await dataset.query("SELECT run_id, correlation_id FROM runs ORDER BY run_id");
    return rows as [string, string][];
  } finally {
    dataset.close();
  }
}

/**
 * Rewrites a dataset as an export before this layout change wrote it: each run's runs row in its
 * partition folder, named in its partition, no table-level file.
 */
async function toRunsInPartitions(root: string): Promise<void> {
  const manifest = manifestOf(root);
  const [name] = manifest.table_files?.runs ?? [];
  const file = join(root, "runs", name as string);
  const instance = await DuckDBInstance.create(":memory:");
  const connection = await instance.connect();
  try {
    for (const partition of manifest.partitions ?? []) {
      const folder = join(root, "runs", partition.path);
      const target = join(folder, `${manifest.generation}-0.parquet`);
      mkdirSync(folder, { recursive: true });
      await connection.run(
        `COPY (SELECT * FROM read_parquet('${file}') WHERE run_id = $1) TO '${target}' (FORMAT parquet)`,
        [partition.run_id],
      );
      partition.files = { runs: [`${manifest.generation}-0.parquet`], ...partition.files };
    }
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
  rmSync(file);
  delete manifest.table_files;
  writeFileSync(join(root, MANIFEST_FILE), JSON.stringify(manifest));
}

describe.each(["run_id", "correlation_id"] as const)("partitioned by %s", (partitionBy: PartitionBy) => {
  const base = join(workDir, `base-${partitionBy}`);
  let oldSnapshot = "";

  beforeAll(async () => {
    await exportParquet(oldTraces, base, { partitionBy });
    oldSnapshot = await snapshot(base);
  }, 120_000);

  test("the manifest names one runs file, at the top of runs/, and no partition holds runs rows", () => {
    const manifest = manifestOf(base);
    expect(manifest.table_files).toEqual({ runs: [`${manifest.generation}-0.parquet`] });
    expect(topRunsFiles(base)).toEqual([`${manifest.generation}-0.parquet`]);
    expect(manifest.partitions?.some((partition) => partition.files.runs !== undefined)).toBe(false);
    expect(manifest.partitions?.map((partition) => partition.run_id)).toEqual(["run-a", "run-b"]);
  });

  test("a second export keeps every run exactly once: kept, replaced and new", async () => {
    const dir = join(workDir, `second-${partitionBy}`);
    cpSync(base, dir, { recursive: true });
    const report = await exportParquet(newTraces, dir, { partitionBy });
    expect(report.replaced).toEqual(["run-a"]);
    expect(report.rows.runs).toBe(2);
    // run-a's new row (its new correlation id), run-b's kept row, run-c's new row.
    expect(await runRows(dir)).toEqual([
      ["run-a", "writer/update-9"],
      ["run-b", "writer::step/update-3"],
      ["run-c", "writer::step/update-3"],
    ]);
    const manifest = manifestOf(dir);
    // The old runs file is removed after the commit: one runs file, the new generation's.
    expect(topRunsFiles(dir)).toEqual([`${manifest.generation}-0.parquet`]);
    expect(parquetFilesBelow(dir)).toEqual(namedFiles(dir));
    // The exact correlation id is the runs file's own column: every run's row carries its own.
    const dataset = await openDataset(dir);
    try {
      const { rows } = await dataset.query(
        "SELECT count(*) FROM ops JOIN runs USING (run_id) WHERE runs.run_id = 'run-a'",
      );
      expect(rows[0]?.[0]).toBe(2n);
    } finally {
      dataset.close();
    }
  }, 120_000);

  test("a runs file written but not committed is never read, and the next export removes it", async () => {
    const dir = join(workDir, `killed-${partitionBy}`);
    cpSync(base, dir, { recursive: true });
    const steps: ExportStep[] = [];
    const probe = join(workDir, `probe-${partitionBy}`);
    cpSync(base, probe, { recursive: true });
    await exportParquet(newTraces, probe, { partitionBy, beforeStep: (step) => void steps.push(step) });
    const commit = steps.findIndex((step) => step.kind === "commit");
    expect(steps.findIndex((step) => step.kind === "move-table")).toBeLessThan(commit);
    // A real kill -9 just before the manifest is written: the new runs file is in place, unnamed.
    const child = spawnSync(
      process.execPath,
      ["--import", tsx, join(here, "export-child.ts"), String(commit), partitionBy, dir, ...newTraces],
      { encoding: "utf8" },
    );
    expect(child.signal, child.stderr).toBe("SIGKILL");
    const before = manifestOf(base);
    expect(manifestOf(dir).generation).toBe(before.generation);
    const orphans = topRunsFiles(dir).filter((name) => !before.table_files?.runs?.includes(name));
    expect(orphans).toHaveLength(1);
    expect(await snapshot(dir)).toBe(oldSnapshot);
    await exportParquet(newTraces, dir, { partitionBy });
    for (const orphan of orphans) expect(existsSync(join(dir, "runs", orphan))).toBe(false);
    expect(parquetFilesBelow(dir)).toEqual(namedFiles(dir));
    expect(await snapshot(dir)).toBe(await snapshot(probe));
  }, 120_000);

  test("a dataset with its runs rows in the partitions reads the same, and the next export moves them", async () => {
    const dir = join(workDir, `old-style-${partitionBy}`);
    cpSync(base, dir, { recursive: true });
    await toRunsInPartitions(dir);
    expect(manifestOf(dir).table_files).toBeUndefined();
    expect(topRunsFiles(dir)).toEqual([]);
    expect(await snapshot(dir)).toBe(oldSnapshot);
    await exportParquet(newTraces, dir, { partitionBy });
    expect(await runRows(dir)).toEqual([
      ["run-a", "writer/update-9"],
      ["run-b", "writer::step/update-3"],
      ["run-c", "writer::step/update-3"],
    ]);
    const manifest = manifestOf(dir);
    expect(manifest.partitions?.some((partition) => partition.files.runs !== undefined)).toBe(false);
    // The kept run-b's old runs file in its partition is removed with the others.
    expect(parquetFilesBelow(dir)).toEqual(namedFiles(dir));
    expect(parquetFilesBelow(dir).filter((path) => path.startsWith("runs"))).toEqual([
      join("runs", `${manifest.generation}-0.parquet`),
    ]);
  }, 120_000);
});

test("a user's own file at the top of runs/ is neither read nor removed", async () => {
  const dir = join(workDir, "stray");
  await exportParquet(oldTraces, dir);
  writeFileSync(join(dir, "runs", "notes.parquet"), "not parquet");
  writeFileSync(join(dir, "runs", "g1-0.parquet"), "not parquet either");
  await exportParquet(newTraces, dir);
  expect(await runRows(dir)).toHaveLength(3);
  expect(existsSync(join(dir, "runs", "notes.parquet"))).toBe(true);
  expect(existsSync(join(dir, "runs", "g1-0.parquet"))).toBe(true);
});

test("a missing runs file is named in the error", async () => {
  const dir = join(workDir, "missing");
  await exportParquet(oldTraces, dir);
  const [name] = manifestOf(dir).table_files?.runs ?? [];
  rmSync(join(dir, "runs", name as string));
  await expect(openDataset(dir)).rejects.toThrow(
    new RegExp(`runs[/\\\\]${name}: named by _cg_dataset\\.json \\(table runs\\) but missing`),
  );
});

test.each([
  [
    "a name outside the folder",
    { runs: ["../g000001-0123abcd-0.parquet"] },
    /table_files\.runs holds a name/,
  ],
  ["an unknown table", { nope: ["g000001-0123abcd-0.parquet"] }, /table_files names an unknown table/],
  ["not an object", ["g000001-0123abcd-0.parquet"], /table_files is not an object/],
])("a manifest whose table_files holds %s is refused", async (_, tableFiles, message) => {
  const dir = join(workDir, `bad-${_.replaceAll(" ", "-")}`);
  await exportParquet(oldTraces, dir);
  const manifest = manifestOf(dir) as unknown as Record<string, unknown>;
  manifest.table_files = tableFiles;
  writeFileSync(join(dir, MANIFEST_FILE), JSON.stringify(manifest));
  const error = await openDataset(dir).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(SqlError.isInstance(error) && error.code).toBe("dataset_layout");
  expect((error as Error).message).toMatch(message);
});
