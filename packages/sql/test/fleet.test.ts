// 1,000 generated traces (5 jobs × 25 steps × 8 ranks, one rank of one job slow in backward):
// rank_skew finds the slow rank and span, op_stats equals a direct computation, and the same
// answers come from the exported Parquet dataset.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { exportParquet, openDataset, openTraceDatabase, type TraceDatabase } from "../src/index.js";
import { type Fleet, writeFleet } from "./fleet.js";

const workDir = mkdtempSync(join(tmpdir(), "cg-sql-fleet-"));
let fleet: Fleet;
let database: TraceDatabase;

beforeAll(async () => {
  fleet = writeFleet(join(workDir, "traces"), {
    jobs: 5,
    steps: 25,
    ranks: 8,
    slow: { job: 2, rank: 5, factor: 5 },
  });
  database = await openTraceDatabase({ traces: [join(workDir, "traces")] });
}, 120_000);

afterAll(() => {
  database?.close();
  rmSync(workDir, { recursive: true, force: true });
});

test("every trace is read", async () => {
  expect(fleet.files).toHaveLength(1000);
  expect(database.report.rejected).toEqual([]);
  expect((await database.query("SELECT count(*), count(DISTINCT correlation_id) FROM runs")).rows).toEqual([
    [1000n, 125n],
  ]);
});

test("rank_skew finds the slow rank and span", async () => {
  const top = await database.query(
    "SELECT correlation_id, path, slowest_rank, ranks FROM rank_skew ORDER BY max_over_median DESC, correlation_id LIMIT 25",
  );
  for (const [correlationId, path, rank, ranks] of top.rows) {
    expect(fleet.slowCorrelationIds).toContain(correlationId);
    expect(path).toBe("train/update/backward");
    expect(rank).toBe("5");
    expect(ranks).toBe(8n);
  }
  // No other job shows a rank 2.5 times slower than the median in any span.
  const others = await database.query(
    "SELECT count(*) FROM rank_skew WHERE max_over_median > 2.5 AND NOT starts_with(correlation_id, 'job-2/')",
  );
  expect(others.rows).toEqual([[0n]]);
});

/** Nearest-rank percentile, as DuckDB's quantile_disc picks it. */
function nearestRank(sorted: readonly number[], fraction: number): number {
  return sorted[Math.max(0, Math.ceil(fraction * sorted.length) - 1)] as number;
}

function directOpStats(): unknown[][] {
  const groups = new Map<string, { runId: string; opName: string; durations: number[]; bytes: number }>();
  for (const op of fleet.ops) {
    const key = `${op.runId}\u0000${op.opName}`;
    let group = groups.get(key);
    if (group === undefined) {
      group = { runId: op.runId, opName: op.opName, durations: [], bytes: 0 };
      groups.set(key, group);
    }
    group.durations.push(op.durationNs);
    group.bytes += op.storageBytes;
  }
  const rows = [...groups.values()].map(({ runId, opName, durations, bytes }) => {
    const sorted = [...durations].sort((left, right) => left - right);
    const total = sorted.reduce((sum, value) => sum + value, 0);
    return [
      runId,
      opName,
      BigInt(sorted.length),
      BigInt(total),
      total / sorted.length,
      BigInt(nearestRank(sorted, 0.5)),
      BigInt(nearestRank(sorted, 0.95)),
      BigInt(bytes),
    ];
  });
  return rows.sort((left, right) => (`${left[0]}\u0000${left[1]}` < `${right[0]}\u0000${right[1]}` ? -1 : 1));
}

const OP_STATS =
  "SELECT run_id, op_name, calls, total_ns::UBIGINT, mean_ns, p50_ns, p95_ns, bytes::UBIGINT FROM op_stats ORDER BY run_id, op_name";

test("op_stats equals a direct computation over the generated ops", async () => {
  const rows = (await database.query(OP_STATS)).rows;
  expect(rows).toHaveLength(5000);
  expect(rows).toEqual(directOpStats());
});

test("the Parquet dataset gives the same op_stats and rank_skew", async () => {
  const outDir = join(workDir, "dataset");
  const report = await exportParquet([join(workDir, "traces")], outDir, { partitionBy: "correlation_id" });
  expect(report.runs).toHaveLength(1000);
  const dataset = await openDataset(outDir);
  try {
    expect((await dataset.query(OP_STATS)).rows).toEqual(directOpStats());
    const skew = "SELECT * FROM rank_skew ORDER BY correlation_id, path";
    expect((await dataset.query(skew)).rows).toEqual((await database.query(skew)).rows);
  } finally {
    dataset.close();
  }
}, 120_000);
