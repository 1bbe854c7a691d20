// What the trend page draws: runs in order and one series of values per metric. Plain data, so the
// page does not depend on where the series came from (`@cg/sql`'s `regressFleet` in `cg-trace regress`).

export type TrendUnit = "ns" | "bytes";

export type TrendStatus = "regression" | "improvement" | "unchanged" | "no data";

export interface TrendRun {
  runId: string;
  /** What the runs are ordered by (a timestamp or a tag value), shown on hover. */
  label: string;
  trusted: boolean;
  /** The window the run belongs to; absent for runs older than the baseline window. */
  window?: "baseline" | "candidate";
}

export interface TrendSeries {
  /** Stable id, used as the chart's `data-series` (e.g. `step_time`, `op:matmul`). */
  id: string;
  title: string;
  unit: TrendUnit;
  /** One value per run, in the order of `TrendPageInput.runs`; NaN where a run has none. */
  values: readonly number[];
  status: TrendStatus;
  /** The baseline window's noise band: its median ± k·1.4826·MAD. */
  band?: { median: number; low: number; high: number };
  /** One line: the verdict's figures. */
  detail?: string;
}

export interface TrendPageInput {
  title: string;
  /** Lines under the title: the windows, the thresholds, the overall verdict. */
  facts: readonly (readonly [string, string])[];
  runs: readonly TrendRun[];
  /** The first two are drawn large (step time and peak memory); the rest as small multiples. */
  series: readonly TrendSeries[];
}
