// Per-run series of a fleet, read with two queries from the tables of a trace database or an
// exported dataset: each run's measured step time and peak memory in run order, and the summed time
// of the fleet's top operators in each run.
import type { DuckDBConnection } from "@duckdb/node-api";
import { RegressError } from "./regress-error.js";

/** Run order: the meta line's timestamp, or the value of a tag (numeric when every value is a number). */
export type RunOrder = { by: "timestamp" } | { by: "tag"; tag: string };

/** Only runs with these meta values (each optional). */
export interface RunFilter {
  entrypoint?: string;
  phase?: string;
  device?: string;
}

export interface SeriesOptions {
  order?: RunOrder;
  filter?: RunFilter;
  /** How many operators (by their summed time over every run) get a series (default 5). */
  topOperators?: number;
}

export interface RunPoint {
  runId: string;
  /** Path of the trace file the run was read from (it may not exist here for a dataset). */
  file: string;
  timestamp: string;
  /** The value the runs are ordered by (the timestamp, or the tag's value). */
  orderKey: string;
  entrypoint: string;
  phase: string;
  device: string;
  trusted: boolean;
  /**
   * Measured step time and peak live bytes. Numbers, not u64: values above 2^53 (104 days of
   * nanoseconds, 8 PiB) lose their last digits, which no verdict here depends on.
   */
  measuredNs: number;
  peakBytes: number;
  /** Summed op time per top operator, in the order of `RunSeries.operators`; 0 when it did not run. */
  operatorNs: number[];
}

export interface RunSeries {
  order: RunOrder;
  runs: RunPoint[];
  /** The top operators by summed time over every run, largest first. */
  operators: string[];
}

export const DEFAULT_TOP_OPERATORS = 5;

/** One row's values by column name, from a DuckDB reader. */
async function rows(
  connection: DuckDBConnection,
  sql: string,
  params: Record<string, string | number>,
): Promise<Record<string, unknown>[]> {
  const reader = await connection.runAndReadAll(sql, params);
  return reader.getRowObjectsJS() as Record<string, unknown>[];
}

function filterSql(filter: RunFilter): { where: string; params: Record<string, string> } {
  const parts: string[] = [];
  const params: Record<string, string> = {};
  for (const key of ["entrypoint", "phase", "device"] as const) {
    const value = filter[key];
    if (value === undefined) continue;
    parts.push(`${key} = $${key}`);
    params[key] = value;
  }
  return { where: parts.length === 0 ? "" : `WHERE ${parts.join(" AND ")}`, params };
}

/** Reads the per-run series of the runs in `connection`'s `runs`, `ops` tables, in run order. */
export async function readRunSeries(
  connection: DuckDBConnection,
  options: SeriesOptions = {},
): Promise<RunSeries> {
  const order = options.order ?? { by: "timestamp" };
  const top = options.topOperators ?? DEFAULT_TOP_OPERATORS;
  if (!Number.isSafeInteger(top) || top < 0) {
    throw new RegressError({
      message: `topOperators must be a whole number ≥ 0, got ${top}`,
      code: "bad_option",
    });
  }
  const { where, params } = filterSql(options.filter ?? {});
  const tagParams = order.by === "tag" ? { ...params, tag: order.tag } : params;
  // Timestamps order as instants where they parse, else as text; a tag orders as a number when it is one.
  const orderKey = order.by === "tag" ? "tags[$tag]" : '"timestamp"';
  const orderBy =
    order.by === "tag"
      ? `try_cast(tags[$tag] AS DOUBLE) NULLS LAST, tags[$tag], try_cast("timestamp" AS TIMESTAMPTZ), "timestamp", run_id`
      : `try_cast("timestamp" AS TIMESTAMPTZ), "timestamp", run_id`;
  const runRows = await rows(
    connection,
    `SELECT run_id, file, "timestamp", ${orderKey} AS order_key, entrypoint, phase, device, trusted,
       measured_ns::DOUBLE AS measured_ns, peak_bytes::DOUBLE AS peak_bytes
     FROM runs ${where} ORDER BY ${orderBy}`,
    tagParams,
  );
  if (order.by === "tag") {
    const missing = runRows.filter((row) => row.order_key === null).map((row) => String(row.run_id));
    if (missing.length > 0) {
      throw new RegressError({
        message: `${missing.length} run(s) have no tag "${order.tag}" to order by: ${missing.slice(0, 5).join(", ")}${missing.length > 5 ? ", …" : ""}`,
        code: "missing_order_tag",
      });
    }
  }
  const operatorRows =
    top === 0
      ? []
      : await rows(
          connection,
          // One scan of each table: a dataset holds a Parquet file per run and table, and opening
          // them is most of the time (1,000 runs: ~0.6 s CPU a table).
          `WITH totals AS MATERIALIZED (
             SELECT run_id, op_name, sum(duration_ns)::DOUBLE AS total_ns
             FROM ops ${where === "" ? "" : `WHERE run_id IN (SELECT run_id FROM runs ${where})`}
             GROUP BY run_id, op_name
           ),
           top AS (SELECT op_name, sum(total_ns) AS fleet_ns FROM totals GROUP BY op_name ORDER BY fleet_ns DESC, op_name LIMIT ${top})
           SELECT t.run_id, t.op_name, t.total_ns, top.fleet_ns FROM totals t JOIN top USING (op_name)
           ORDER BY top.fleet_ns DESC, t.op_name`,
          params,
        );
  const operators: string[] = [];
  const operatorIndex = new Map<string, number>();
  for (const row of operatorRows) {
    const name = String(row.op_name);
    if (!operatorIndex.has(name)) {
      operatorIndex.set(name, operators.length);
      operators.push(name);
    }
  }
  const runs: RunPoint[] = runRows.map((row) => ({
    runId: String(row.run_id),
    file: String(row.file),
    timestamp: String(row.timestamp),
    orderKey: String(row.order_key),
    entrypoint: String(row.entrypoint),
    phase: String(row.phase),
    device: String(row.device),
    trusted: row.trusted === true,
    measuredNs: Number(row.measured_ns),
    peakBytes: Number(row.peak_bytes),
    operatorNs: new Array<number>(operators.length).fill(0),
  }));
  const runIndex = new Map(runs.map((run, index) => [run.runId, index]));
  for (const row of operatorRows) {
    const run = runs[runIndex.get(String(row.run_id)) as number];
    if (run !== undefined)
      run.operatorNs[operatorIndex.get(String(row.op_name)) as number] = Number(row.total_ns);
  }
  return { order, runs, operators };
}
