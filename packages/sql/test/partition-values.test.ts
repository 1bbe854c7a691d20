// Partition values are exact: every run id and correlation id (any string, as the spec's readers
// accept) comes back as it was through DuckDB over the dataset and through a Parquet reader of each
// file, whatever folder name it got; folder names stay short, safe and distinct without case.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { parquetReadObjects } from "hyparquet";
import { compressors } from "hyparquet-compressors";
import { afterAll, expect, test } from "vitest";
import {
  type DatasetManifest,
  exportParquet,
  MANIFEST_FILE,
  openDataset,
  type PartitionBy,
} from "../src/index.js";
import { tinyTrace } from "./dataset-snapshot.js";

const workDir = mkdtempSync(join(tmpdir(), "cg-sql-ids-"));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));
let exports = 0;

/** Hostile ids: Hive's NULL spellings, path syntax, URI escapes, case twins, 10 kB, unicode, empty. */
const HOSTILE = [
  "NULL",
  "null",
  "__HIVE_DEFAULT_PARTITION__",
  "",
  ".",
  "..",
  ".hidden",
  "a/b",
  "../escape",
  "%",
  "%zz",
  "%2F",
  "a=b",
  "run_id=x",
  "CaseTwin",
  "casetwin",
  "CASETWIN",
  "x".repeat(10_000),
  "é".repeat(5_000),
  "日本語 ✓ 🚀",
  "back\\slash",
  "star*",
  "[x]",
  "tab\tnew\nline",
  " leading and trailing ",
];

interface Run {
  runId: string;
  correlationId: string;
  ops: number;
}

async function exportAndCheck(runs: Run[], partitionBy: PartitionBy): Promise<void> {
  const dir = join(workDir, `export-${exports++}`);
  mkdirSync(`${dir}-traces`);
  const traces = runs.map((run, index) => {
    const path = join(`${dir}-traces`, `${index}.jsonl`);
    writeFileSync(path, tinyTrace(run.runId, run.correlationId, run.ops));
    return path;
  });
  const report = await exportParquet(traces, dir, { partitionBy, strict: true });
  expect(report.runs).toHaveLength(runs.length);
  // Both sides in one order of our own: the check is the ids, not how an engine orders text
  // (DuckDB's order and JavaScript's `<` differ between a character past U+FFFF and one in
  // U+E000–U+FFFF).
  const byText = (left: string, right: string): number => (left < right ? -1 : left > right ? 1 : 0);
  const byRun = [...runs].sort((left, right) => byText(left.runId, right.runId));

  // DuckDB over the dataset: exact ids, and every op under its own run.
  const dataset = await openDataset(dir);
  try {
    const result = await dataset.query(
      "SELECT r.run_id, r.correlation_id, (SELECT count(*) FROM ops o WHERE o.run_id = r.run_id) FROM runs r ORDER BY r.run_id",
    );
    const rows = [...result.rows].sort((left, right) => byText(left[0] as string, right[0] as string));
    expect(rows).toEqual(byRun.map((run) => [run.runId, run.correlationId, BigInt(run.ops)]));
  } finally {
    dataset.close();
  }

  // Each file, read by hyparquet: the ids in it are its partition's exact values.
  const manifest = JSON.parse(readFileSync(join(dir, MANIFEST_FILE), "utf8")) as DatasetManifest;
  const folderNames = new Set<string>();
  for (const partition of manifest.partitions ?? []) {
    for (const folder of partition.path.split("/")) {
      expect(Buffer.byteLength(folder)).toBeLessThanOrEqual(80);
      expect(folder).toMatch(/^(run|correlation)=[A-Za-z0-9_-]*_[0-9a-f]{32}$/);
    }
    folderNames.add(partition.path.toLowerCase());
    for (const [table, files] of Object.entries(partition.files)) {
      for (const name of files ?? []) {
        const bytes = readFileSync(join(dir, table, partition.path, name));
        const rows = (await parquetReadObjects({
          file: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength),
          compressors,
          columns: partitionBy === "run_id" ? ["run_id"] : ["run_id", "correlation_id"],
        })) as { run_id: string; correlation_id?: string }[];
        for (const row of rows) {
          expect(row.run_id).toBe(partition.run_id);
          if (partitionBy === "correlation_id") expect(row.correlation_id).toBe(partition.correlation_id);
        }
      }
    }
  }
  // Distinct even on a case-insensitive file system.
  expect(folderNames.size).toBe(runs.length);
  rmSync(dir, { recursive: true, force: true });
}

test.each(["run_id", "correlation_id"] as const)(
  "every hostile id round-trips exactly, partitioned by %s",
  async (partitionBy) => {
    const runs = HOSTILE.map((runId, index) => ({
      runId,
      correlationId: HOSTILE[(index * 7) % HOSTILE.length] as string,
      ops: 1 + (index % 3),
    }));
    await exportAndCheck(runs, partitionBy);
  },
  300_000,
);

test("ids past U+FFFF and in U+E000–U+FFFF round-trip exactly", async () => {
  await exportAndCheck(
    [
      { runId: "豈", correlationId: "NULL", ops: 1 },
      { runId: "𐀀", correlationId: "NULL", ops: 2 },
    ],
    "run_id",
  );
}, 120_000);

test("any run and correlation ids round-trip exactly (fast-check)", async () => {
  const id = fc.oneof(
    fc.constantFrom(...HOSTILE),
    // Found by a run: past U+FFFF and in U+E000–U+FFFF, whose orders by UTF-16 and UTF-8 differ.
    fc.constantFrom("豈", "𐀀"),
    fc.string({ unit: "grapheme", maxLength: 40 }),
    fc.string({ unit: "grapheme-ascii", minLength: 250, maxLength: 400 }),
  );
  await fc.assert(
    fc.asyncProperty(
      fc.uniqueArray(id, { minLength: 1, maxLength: 4 }),
      fc.array(id, { minLength: 1, maxLength: 2 }),
      fc.constantFrom<PartitionBy>("run_id", "correlation_id"),
      async (runIds, correlations, partitionBy) => {
        const runs = runIds.map((runId, index) => ({
          runId,
          correlationId: correlations[index % correlations.length] as string,
          ops: 1 + (index % 2),
        }));
        await exportAndCheck(runs, partitionBy);
      },
    ),
    { numRuns: 12 },
  );
}, 600_000);
