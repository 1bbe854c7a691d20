// The dataset as other engines read it, each with its own Parquet reader and its own glob over the
// folder (no manifest): ClickHouse (chdb, in-process) and Polars (nodejs-polars). Row counts, exact
// u64 values (18446744073709551615 included) and the exact partition values are what DuckDB says.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { query as clickhouse } from "chdb";
import pl from "nodejs-polars";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { exportParquet, openDataset, TABLES } from "../src/index.js";
import { tinyTrace } from "./dataset-snapshot.js";
import { SATURATED, writeWriterTrace } from "./trace-fixtures.js";

const workDir = mkdtempSync(join(tmpdir(), "cg-sql-engines-"));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

// Ids a Hive reader would misread from a folder name: they must come from the files.
const RUN_IDS = ["NULL", "a/b=%2F", "CaseTwin", "casetwin", "日本語 ✓", "x".repeat(10_000)];
const traces = [
  writeWriterTrace(join(workDir, "writer.jsonl"), "writer-run-1", "NULL"),
  ...RUN_IDS.map((runId, index) => {
    const path = join(workDir, `tiny-${index}.jsonl`);
    writeFileSync(path, tinyTrace(runId, index % 2 === 0 ? "NULL" : "c/ü", index + 1));
    return path;
  }),
];

/** `SELECT run_id, count(*) … GROUP BY run_id` of every table, from DuckDB over the dataset. */
let expected: Record<string, [string, bigint][]> = {};
let saturatedOps = 0n;
let correlations: string[] = [];

describe.each(["run_id", "correlation_id"] as const)("partitioned by %s", (partitionBy) => {
  const dir = join(workDir, partitionBy);
  /**
   * Polars' glob: the runs table is one file at the top of its folder, the others one `*` per
   * partition folder level.
   */
  const files = (table: string) =>
    table === "runs"
      ? `${dir}/runs/*.parquet`
      : `${dir}/${table}/${partitionBy === "run_id" ? "*" : "*/*"}/*.parquet`;

  beforeAll(async () => {
    await exportParquet(traces, dir, { partitionBy });
    const dataset = await openDataset(dir);
    try {
      expected = {};
      for (const table of TABLES) {
        const result = await dataset.query(
          `SELECT run_id, count(*) FROM "${table.name}" GROUP BY run_id ORDER BY run_id`,
        );
        expected[table.name] = result.rows as [string, bigint][];
      }
      const huge = await dataset.query(`SELECT count(*) FROM ops WHERE duration_ns = ${SATURATED}`);
      saturatedOps = huge.rows[0]?.[0] as bigint;
      const distinct = await dataset.query("SELECT DISTINCT correlation_id FROM runs ORDER BY 1");
      correlations = distinct.rows.map((row) => row[0] as string);
    } finally {
      dataset.close();
    }
    expect(saturatedOps).toBeGreaterThan(BigInt(RUN_IDS.length));
  }, 120_000);

  test("ClickHouse (chdb) reads the same runs, rows, u64 values and ids", () => {
    for (const table of TABLES) {
      const rows = expected[table.name] ?? [];
      if (rows.length === 0) continue;
      const glob = `${dir}/${table.name}/**/*.parquet`.replaceAll("'", "\\'");
      const text = clickhouse(
        `SELECT run_id, toString(count()) AS n FROM file('${glob}', Parquet) GROUP BY run_id ORDER BY run_id`,
        "JSONEachRow",
      );
      const got = text
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as { run_id: string; n: string })
        .map((row) => [row.run_id, BigInt(row.n)]);
      expect(got, table.name).toEqual(rows);
    }
    const glob = `${dir}/ops/**/*.parquet`;
    const huge = clickhouse(
      `SELECT toString(max(duration_ns)) AS max, toString(countIf(duration_ns = 18446744073709551615)) AS n, toTypeName(max(duration_ns)) AS type FROM file('${glob}', Parquet)`,
      "JSONEachRow",
    );
    // DuckDB writes every column as optional in Parquet, so ClickHouse makes them Nullable.
    expect(JSON.parse(huge), huge).toEqual({
      max: String(SATURATED),
      n: String(saturatedOps),
      type: "Nullable(UInt64)",
    });
    if (partitionBy === "correlation_id") {
      const inOps = clickhouse(
        `SELECT DISTINCT correlation_id FROM file('${dir}/ops/**/*.parquet', Parquet) ORDER BY correlation_id`,
        "JSONEachRow",
      );
      expect(correlations).toContain("NULL");
      expect(
        inOps
          .trim()
          .split("\n")
          .map((line) => JSON.parse(line).correlation_id),
      ).toEqual(correlations);
    }
  });

  test("Polars reads the same runs, rows, u64 values and ids", () => {
    for (const table of TABLES) {
      const rows = expected[table.name] ?? [];
      if (rows.length === 0) continue;
      // Only run_id is read: Polars 0.24 cannot decode the MAP column runs.tags (see the README).
      const frame = pl.scanParquet(files(table.name)).select("run_id").collectSync();
      const counts = frame.groupBy("run_id").len().sort("run_id");
      const got = (counts.rows() as [string, number][]).map(([runId, count]) => [runId, BigInt(count)]);
      // Polars sorts strings by bytes, as DuckDB does.
      expect(got, table.name).toEqual(rows);
    }
    const ops = pl.scanParquet(files("ops")).select("duration_ns").collectSync();
    expect(String(ops.getColumn("duration_ns").dtype)).toBe("DataType(UInt64)");
    const durations = ops.getColumn("duration_ns").toArray() as (bigint | number)[];
    expect(durations.filter((value) => BigInt(value) === SATURATED).length).toBe(Number(saturatedOps));
    const runIds = new Set(
      pl.scanParquet(files("runs")).select("run_id").collectSync().getColumn("run_id").toArray(),
    );
    for (const runId of RUN_IDS) expect(runIds.has(runId), runId.slice(0, 20)).toBe(true);
  });
});
