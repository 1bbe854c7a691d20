// regressFleet over writer-made fleets (noisy op times, changes planted in the newest runs), from
// the traces and from an exported Parquet dataset.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ProfileRun, TraceSession } from "@cg/writer";
import { afterAll, expect, test } from "vitest";
import { writeRegressFleet } from "../../../bench/src/support/regress-fleet.js";
import {
  exportParquet,
  openDataset,
  openTraceDatabase,
  RegressError,
  type RegressReport,
  regressFleet,
  type TraceDatabase,
} from "../src/index.js";

const workDir = mkdtempSync(join(tmpdir(), "cg-sql-regress-"));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

async function withDatabase<T>(traces: string[], use: (database: TraceDatabase) => Promise<T>): Promise<T> {
  const database = await openTraceDatabase({ traces, strict: true, worker: false });
  try {
    return await use(database);
  } finally {
    database.close();
  }
}

const status = (report: RegressReport) =>
  Object.fromEntries(report.metrics.map((metric) => [metric.label, metric.verdict?.status ?? "no data"]));

test("a slowed op in the newest runs flags the op and the step time, and names a representative pair", async () => {
  const dir = join(workDir, "slow-op");
  writeRegressFleet(dir, { runs: 26, seed: 1, slowOp: { op: "matmul_grad", factor: 1.5, runs: 3 } });
  const report = await withDatabase([dir], (database) => regressFleet(database));
  expect(report.series.runs.map((run) => run.runId)).toEqual(
    Array.from({ length: 26 }, (_, index) => `run-${index}`),
  );
  expect(report.candidateRuns).toEqual(["run-23", "run-24", "run-25"]);
  expect(report.baselineRuns).toHaveLength(20);
  expect(report.baselineRuns[0]).toBe("run-3");
  expect(report.series.operators).toEqual(["matmul_grad", "matmul", "adam", "softmax", "relu_grad"]);
  expect(status(report)).toEqual({
    "step time": "regression",
    "peak memory": "unchanged",
    "op matmul_grad": "regression",
    "op matmul": "unchanged",
    "op adam": "unchanged",
    "op softmax": "unchanged",
    "op relu_grad": "unchanged",
  });
  expect(report.regressed).toBe(true);
  const step = report.metrics[0];
  expect(step?.verdict?.deltaPercent).toBeGreaterThan(20);
  expect(report.baselineRuns).toContain(step?.representative?.baseline.runId);
  expect(report.candidateRuns).toContain(step?.representative?.candidate.runId);
  expect(step?.representative?.candidate.file).toMatch(/run-002[345]\.jsonl$/);
});

test("a span allocating more flags the peak memory only", async () => {
  const dir = join(workDir, "more-memory");
  writeRegressFleet(dir, { runs: 25, seed: 2, extraBytes: { bytes: 1 << 20, runs: 3 } });
  const report = await withDatabase([dir], (database) => regressFleet(database, { topOperators: 2 }));
  expect(status(report)).toEqual({
    "step time": "unchanged",
    "peak memory": "regression",
    "op matmul_grad": "unchanged",
    "op matmul": "unchanged",
  });
  const memory = report.metrics[1]?.verdict;
  expect(memory?.baselineMedian).toBe(4_194_304);
  expect(memory?.candidateMedian).toBe(4_194_304 + (1 << 20));
  expect(memory?.baselineMad).toBe(0);
});

test("noise alone gives no verdict", async () => {
  for (const seed of [3, 4, 5]) {
    const dir = join(workDir, `noise-${seed}`);
    writeRegressFleet(dir, { runs: 23, seed, noise: 0.05 });
    const report = await withDatabase([dir], (database) => regressFleet(database));
    expect(report.regressed).toBe(false);
    expect(report.metrics.filter((metric) => metric.verdict?.status !== "unchanged")).toEqual([]);
  }
});

test("the same report from an exported Parquet dataset", async () => {
  const dir = join(workDir, "slow-op");
  const datasetDir = join(workDir, "dataset");
  await exportParquet([dir], datasetDir);
  const fromTraces = await withDatabase([dir], (database) => regressFleet(database));
  const dataset = await openDataset(datasetDir);
  try {
    expect(await regressFleet(dataset)).toEqual(fromTraces);
  } finally {
    dataset.close();
  }
});

test("too few runs says how many are needed", async () => {
  const dir = join(workDir, "few");
  writeRegressFleet(dir, { runs: 12, seed: 6, slowOp: { op: "matmul", factor: 3, runs: 3 } });
  await withDatabase([dir], async (database) => {
    const error = await regressFleet(database).catch((caught: unknown) => caught);
    expect(RegressError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "too_few_runs", needed: 23, available: 12 });
    expect((error as Error).message).toBe(
      "a verdict needs 23 trusted runs (20 baseline + 3 candidate), found 12",
    );
    // A single noisy pair can never be significant: refused up front, with the baseline it needs.
    const pair = await regressFleet(database, { baseline: 1, candidate: 1 }).catch(
      (caught: unknown) => caught,
    );
    expect(pair).toMatchObject({ code: "too_few_runs", needed: 100 });
    expect((pair as Error).message).toContain("use --baseline 99 or more");
    // With enough of them for alpha 0.05 the planted change is found.
    const report = await regressFleet(database, { baseline: 9, candidate: 3, alpha: 0.05 });
    expect(report.metrics[0]?.verdict?.status).toBe("regression");
  });
});

test("runs ordered by a tag instead of the timestamp", async () => {
  const dir = join(workDir, "by-tag");
  // The build numbers run backwards in time, and are numeric (10 sorts after 9).
  writeRegressFleet(dir, { runs: 23, seed: 7, buildTag: (index) => String(22 - index) });
  await withDatabase([dir], async (database) => {
    const report = await regressFleet(database, { order: { by: "tag", tag: "build" } });
    expect(report.series.runs.map((run) => run.orderKey)).toEqual(
      Array.from({ length: 23 }, (_, index) => String(index)),
    );
    expect(report.candidateRuns).toEqual(["run-2", "run-1", "run-0"]);
    const missing = await regressFleet(database, { order: { by: "tag", tag: "it's missing" } }).catch(
      (caught: unknown) => caught,
    );
    expect(missing).toMatchObject({ code: "missing_order_tag" });
    expect((missing as Error).message).toContain(`23 run(s) have no tag "it's missing"`);
  });
});

test("runs that are not comparable are refused, and a filter picks one fleet", async () => {
  const dir = join(workDir, "mixed");
  writeRegressFleet(dir, { runs: 23, seed: 8 });
  const other = join(dir, "other.jsonl");
  const session = TraceSession.open(other, ProfileRun.training("other::train_step", 2, "cuda:0"), {
    runId: "other-run",
    timestamp: "2027-01-01T00:00:00.000Z",
  });
  session.beginMeasurement("other/update-2").end();
  session.finish();
  await withDatabase([dir], async (database) => {
    const error = await regressFleet(database).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: "not_comparable" });
    expect((error as Error).message).toBe(
      'the runs are not comparable: entrypoint differs ("fleet::train_step" in 22, "other::train_step" in 1); select one with --entrypoint',
    );
    const report = await regressFleet(database, { filter: { entrypoint: "fleet::train_step" } });
    expect(report.series.runs).toHaveLength(23);
  });
});
