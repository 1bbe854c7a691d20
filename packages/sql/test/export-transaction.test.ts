// An export is a transaction: stopped at any of its steps (each table, each partition, the
// folders' flush, the manifest, each removal), the dataset reads exactly as the old one (before the
// commit) or the new one (after it), never a mix, never empty; what the stopped export left is
// never read, and the next export removes it and gives the same dataset as an export never stopped.
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type ExportStep, exportParquet, type PartitionBy, SqlError } from "../src/index.js";
import { namedFiles, parquetFilesBelow, snapshot, tinyTrace, treeOf } from "./dataset-snapshot.js";
import { writeWriterTrace } from "./trace-fixtures.js";

const workDir = mkdtempSync(join(tmpdir(), "cg-sql-tx-"));
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
// run-a again with other rows (so it replaces the old one), and a new run-c.
const newTraces = [
  traceFile("a2.jsonl", tinyTrace("run-a", "writer/update-3", 3)),
  writeWriterTrace(join(workDir, "c.jsonl"), "run-c"),
];

/** A disk-full error as `fs` raises it. */
function enospc(step: ExportStep): Error {
  return Object.assign(new Error(`ENOSPC: no space left on device, write (at ${step.kind})`), {
    code: "ENOSPC",
  });
}

describe.each(["run_id", "correlation_id"] as const)("partitioned by %s", (partitionBy: PartitionBy) => {
  const base = join(workDir, `base-${partitionBy}`);
  let oldSnapshot = "";
  let newSnapshot = "";
  const steps: ExportStep[] = [];

  beforeAll(async () => {
    await exportParquet(oldTraces, base, { partitionBy });
    oldSnapshot = await snapshot(base);
    const clean = join(workDir, `clean-${partitionBy}`);
    cpSync(base, clean, { recursive: true });
    const report = await exportParquet(newTraces, clean, {
      partitionBy,
      beforeStep: (step) => {
        steps.push(step);
      },
    });
    expect(report.replaced).toEqual(["run-a"]);
    expect(report.cleanupError).toBeUndefined();
    newSnapshot = await snapshot(clean);
    // Only what the manifest names is left.
    expect(parquetFilesBelow(clean)).toEqual(namedFiles(clean));
    expect(treeOf(clean).filter((path) => path.startsWith("_cg_work-"))).toEqual([]);
  });

  test("the steps cover every table, every partition, the manifest and the removals", () => {
    expect(oldSnapshot).not.toEqual(newSnapshot);
    const kinds = steps.map((step) => step.kind);
    // One file per run and table with rows: run-a and run-c each have spans, ops, tensors, memory.
    expect(kinds.filter((kind) => kind === "write").length).toBeGreaterThanOrEqual(8);
    expect(kinds.filter((kind) => kind === "move").length).toBeGreaterThanOrEqual(8);
    // The runs table: one file of every run, written and moved once.
    expect(steps.filter((step) => step.kind === "write-table")).toEqual([
      { kind: "write-table", table: "runs" },
    ]);
    expect(steps.filter((step) => step.kind === "move-table")).toEqual([
      { kind: "move-table", table: "runs" },
    ]);
    expect(steps.some((step) => step.kind === "write" && step.table === "runs")).toBe(false);
    expect(kinds.indexOf("move-table")).toBeGreaterThan(kinds.lastIndexOf("write"));
    expect(kinds.indexOf("commit")).toBeGreaterThan(kinds.lastIndexOf("move"));
    // After the commit: the replaced run-a's old files and folders, the old runs file, and the
    // work folder.
    expect(kinds.slice(kinds.indexOf("commit") + 1).every((kind) => kind === "cleanup")).toBe(true);
    const removed = steps.flatMap((step) => (step.kind === "cleanup" ? [step.path] : []));
    expect(removed.filter((path) => /[/\\]runs[/\\]g[0-9]+-[0-9a-f]+-0\.parquet$/.test(path))).toHaveLength(
      1,
    );
    expect(kinds.filter((kind) => kind === "cleanup").length).toBeGreaterThanOrEqual(6);
  });

  test("stopped at every step: the old dataset or the new one, and the next export heals it", async () => {
    const commitAt = steps.findIndex((step) => step.kind === "commit");
    for (let stopAt = 0; stopAt < steps.length; stopAt++) {
      const dir = join(workDir, `stop-${partitionBy}-${stopAt}`);
      cpSync(base, dir, { recursive: true });
      let seen = 0;
      let stopped: ExportStep | undefined;
      const run = exportParquet(newTraces, dir, {
        partitionBy,
        beforeStep: (step) => {
          if (seen++ !== stopAt) return;
          stopped = step;
          throw enospc(step);
        },
      });
      if (stopAt <= commitAt) {
        const error = await run.then(
          () => undefined,
          (thrown: unknown) => thrown,
        );
        expect(SqlError.isInstance(error), `step ${stopAt}`).toBe(true);
        const message = (error as SqlError).message;
        expect(message).not.toContain("\n");
        expect(message).toContain("the dataset is unchanged");
        expect(message).toContain("ENOSPC");
        // Tables are written two at a time: the message names the failed table's own step.
        if (stopped?.kind === "write") {
          expect(message).toContain(`writing table ${stopped.table} partition ${stopped.partition}: ENOSPC`);
        }
        expect(await snapshot(dir), `stopped at ${stopAt}: ${JSON.stringify(steps[stopAt])}`).toBe(
          oldSnapshot,
        );
      } else {
        // After the commit only removals are left: the new dataset is complete.
        const report = await run;
        expect(report.cleanupError, `step ${stopAt}`).toContain("ENOSPC");
        expect(await snapshot(dir), `stopped at ${stopAt}`).toBe(newSnapshot);
      }
      await exportParquet(newTraces, dir, { partitionBy });
      expect(await snapshot(dir), `healed after ${stopAt}`).toBe(newSnapshot);
      expect(parquetFilesBelow(dir), `leftovers after ${stopAt}`).toEqual(namedFiles(dir));
      expect(treeOf(dir).some((path) => path.startsWith("_cg_work-") || path.includes(".tmp-"))).toBe(false);
      rmSync(dir, { recursive: true, force: true });
    }
  }, 600_000);
});

test("a stray folder and a run id longer than a file name leave the old data in place", async () => {
  const dir = join(workDir, "stray");
  await exportParquet(oldTraces, dir);
  const before = await snapshot(dir);
  // A folder of the first layout's shape that no URI decoder reads, and a user's own file.
  mkdirSync(join(dir, "ops", "run_id=%zz"), { recursive: true });
  writeFileSync(join(dir, "ops", "run_id=%zz", "data_0.parquet"), "not parquet");
  const longId = "r".repeat(10_000);
  const report = await exportParquet([traceFile("long.jsonl", tinyTrace(longId, "c"))], dir);
  expect(report.runs.map((run) => run.run_id)).toEqual([longId]);
  const dataset = await snapshot(dir);
  expect(dataset).toContain(longId);
  // The old runs are still there, and the stray is neither read nor removed.
  for (const runId of ["run-a", "run-b"]) expect(dataset).toContain(runId);
  expect(before).not.toContain(longId);
  expect(existsSync(join(dir, "ops", "run_id=%zz", "data_0.parquet"))).toBe(true);
});

test("every input rejected: a non-zero outcome and no dataset left behind", async () => {
  const broken = traceFile("broken.jsonl", "{not json\n");
  const fresh = join(workDir, "all-rejected");
  await expect(exportParquet([broken], fresh)).rejects.toThrow(
    /every input was rejected \(1 trace; .*broken\.jsonl:1: /,
  );
  expect(existsSync(fresh)).toBe(false);
  // Into an existing, empty folder: it stays empty.
  const empty = join(workDir, "all-rejected-empty");
  mkdirSync(empty);
  await expect(exportParquet([broken], empty)).rejects.toThrow(SqlError);
  expect(treeOf(empty)).toEqual([]);
  // Into a dataset: the dataset stays as it was.
  const dataset = join(workDir, "all-rejected-dataset");
  await exportParquet(oldTraces, dataset);
  const before = await snapshot(dataset);
  await expect(exportParquet([broken], dataset)).rejects.toThrow(SqlError);
  expect(await snapshot(dataset)).toBe(before);
  expect(parquetFilesBelow(dataset)).toEqual(namedFiles(dataset));
});

test("a second export while one is writing is refused and touches nothing", async () => {
  const dir = join(workDir, "locked");
  await exportParquet(oldTraces, dir);
  const before = await snapshot(dir);
  const tree = treeOf(dir);
  // This process is alive: its lock holds.
  writeFileSync(join(dir, "_cg_export.lock"), JSON.stringify({ pid: process.pid, host: hostname() }));
  await expect(exportParquet(newTraces, dir)).rejects.toThrow(
    /another export \(pid \d+\) is writing this dataset/,
  );
  expect(treeOf(dir)).toEqual([...tree, "_cg_export.lock"].sort());
  expect(await snapshot(dir)).toBe(before);
  // A lock whose process is gone (killed) is taken over.
  writeFileSync(join(dir, "_cg_export.lock"), JSON.stringify({ pid: 2 ** 22 + 1, host: hostname() }));
  await exportParquet(newTraces, dir);
  expect(existsSync(join(dir, "_cg_export.lock"))).toBe(false);
});
