// A regression verdict over a fleet of runs: the newest trusted runs (candidate window) against the
// trusted runs just before them (baseline window), for the step time, the peak memory and each top
// operator, with a representative run of each window for the attribution of a flagged change.
import { RegressError } from "./regress-error.js";
import {
  type RunFilter,
  type RunOrder,
  type RunPoint,
  type RunSeries,
  readRunSeries,
} from "./regress-series.js";
import { minimumBaselineRuns } from "./regress-stats.js";
import {
  DEFAULT_ALPHA,
  DEFAULT_BAND_K,
  judgeWindows,
  type MetricVerdict,
  type RegressThreshold,
} from "./regress-verdict.js";
import type { TraceDatabase } from "./trace-database.js";

export interface RegressOptions {
  /** Runs in the baseline window (default 20). */
  baseline?: number;
  /** Newest runs in the candidate window (default 3). */
  candidate?: number;
  order?: RunOrder;
  filter?: RunFilter;
  topOperators?: number;
  /** Default 5 % for the step time and the peak memory, 10 % for an operator. */
  thresholds?: { stepTime?: RegressThreshold; peakMemory?: RegressThreshold; operator?: RegressThreshold };
  alpha?: number;
  bandK?: number;
}

export type RegressMetricKind = "step_time" | "peak_memory" | "operator";

export interface RegressMetric {
  kind: RegressMetricKind;
  /** `step time`, `peak memory`, or `op <name>`. */
  label: string;
  /** The operator's name, for an operator metric. */
  operator?: string;
  unit: "ns" | "bytes";
  /** Absent when no run of either window has a value (e.g. no memory events). */
  verdict?: MetricVerdict;
  /** The runs of each window closest to its median: the pair a flagged change is explained by. */
  representative?: { baseline: RunPoint; candidate: RunPoint };
}

export interface RegressReport {
  schema: "candle-graph/regress/1";
  series: RunSeries;
  /** Run ids of each window, oldest first. */
  baselineRuns: string[];
  candidateRuns: string[];
  /** Untrusted runs (health errors) are left out of the windows. */
  excludedRuns: { runId: string; reason: string }[];
  settings: Required<Omit<RegressOptions, "order" | "filter" | "thresholds">> & {
    thresholds: Required<NonNullable<RegressOptions["thresholds"]>>;
  };
  metrics: RegressMetric[];
  /** True when any metric is a regression. */
  regressed: boolean;
}

export const DEFAULT_BASELINE_RUNS = 20;
export const DEFAULT_CANDIDATE_RUNS = 3;

function wholeAtLeast(name: string, value: number, least: number): number {
  if (!Number.isSafeInteger(value) || value < least) {
    throw new RegressError({
      message: `${name} must be a whole number ≥ ${least}, got ${value}`,
      code: "bad_option",
    });
  }
  return value;
}

/** The windows' runs, checked: enough of them, and comparable (one entrypoint, phase and device). */
function pickWindows(runs: readonly RunPoint[], baseline: number, candidate: number, alpha: number) {
  const needed = minimumBaselineRuns(candidate, alpha);
  if (baseline < needed) {
    throw new RegressError({
      message: `a baseline of ${baseline} run(s) against ${candidate} candidate run(s) can never reach p ≤ ${alpha}: use --baseline ${needed} or more (or more candidate runs)`,
      code: "too_few_runs",
      needed: needed + candidate,
      available: runs.length,
    });
  }
  if (runs.length < baseline + candidate) {
    throw new RegressError({
      message: `a verdict needs ${baseline + candidate} trusted runs (${baseline} baseline + ${candidate} candidate), found ${runs.length}`,
      code: "too_few_runs",
      needed: baseline + candidate,
      available: runs.length,
    });
  }
  const candidateRuns = runs.slice(runs.length - candidate);
  const baselineRuns = runs.slice(runs.length - candidate - baseline, runs.length - candidate);
  const windowRuns = [...baselineRuns, ...candidateRuns];
  for (const field of ["entrypoint", "phase", "device"] as const) {
    const counts = new Map<string, number>();
    for (const run of windowRuns) counts.set(run[field], (counts.get(run[field]) ?? 0) + 1);
    if (counts.size > 1) {
      const listed = [...counts].map(([value, count]) => `"${value}" in ${count}`).join(", ");
      throw new RegressError({
        message: `the runs are not comparable: ${field} differs (${listed}); select one with --${field}`,
        code: "not_comparable",
      });
    }
  }
  return { baselineRuns, candidateRuns };
}

/** The run whose value is closest to `center` (the newest of equals). */
function closest(runs: readonly RunPoint[], values: readonly number[], center: number): RunPoint {
  let best = 0;
  for (let index = 1; index < runs.length; index++) {
    if (Math.abs((values[index] as number) - center) <= Math.abs((values[best] as number) - center))
      best = index;
  }
  return runs[best] as RunPoint;
}

/** Reads the series of `database` and judges the newest runs against the ones before them. */
export async function regressFleet(
  database: TraceDatabase,
  options: RegressOptions = {},
): Promise<RegressReport> {
  const baseline = wholeAtLeast("baseline", options.baseline ?? DEFAULT_BASELINE_RUNS, 1);
  const candidate = wholeAtLeast("candidate", options.candidate ?? DEFAULT_CANDIDATE_RUNS, 1);
  const alpha = options.alpha ?? DEFAULT_ALPHA;
  const bandK = options.bandK ?? DEFAULT_BAND_K;
  if (!(alpha > 0 && alpha < 1))
    throw new RegressError({ message: `alpha must be in (0, 1), got ${alpha}`, code: "bad_option" });
  if (!(bandK >= 0))
    throw new RegressError({ message: `band k must be ≥ 0, got ${bandK}`, code: "bad_option" });
  const thresholds = {
    stepTime: options.thresholds?.stepTime ?? { percent: 5 },
    peakMemory: options.thresholds?.peakMemory ?? { percent: 5 },
    operator: options.thresholds?.operator ?? { percent: 10 },
  };
  const series = await readRunSeries(database.connection, {
    ...(options.order === undefined ? {} : { order: options.order }),
    ...(options.filter === undefined ? {} : { filter: options.filter }),
    ...(options.topOperators === undefined ? {} : { topOperators: options.topOperators }),
  });
  const trusted = series.runs.filter((run) => run.trusted);
  const excludedRuns = series.runs
    .filter((run) => !run.trusted)
    .map((run) => ({ runId: run.runId, reason: "untrusted: its health check has errors" }));
  const { baselineRuns, candidateRuns } = pickWindows(trusted, baseline, candidate, alpha);
  const judge = (
    kind: RegressMetricKind,
    label: string,
    unit: RegressMetric["unit"],
    value: (run: RunPoint) => number,
    threshold: RegressThreshold,
    operator?: string,
  ): RegressMetric => {
    const before = baselineRuns.map(value);
    const after = candidateRuns.map(value);
    const metric: RegressMetric = { kind, label, unit, ...(operator === undefined ? {} : { operator }) };
    if (before.every((entry) => entry === 0) && after.every((entry) => entry === 0)) return metric;
    const verdict = judgeWindows(before, after, { threshold, alpha, bandK });
    metric.verdict = verdict;
    if (verdict.status !== "unchanged") {
      metric.representative = {
        baseline: closest(baselineRuns, before, verdict.baselineMedian),
        candidate: closest(candidateRuns, after, verdict.candidateMedian),
      };
    }
    return metric;
  };
  const metrics: RegressMetric[] = [
    judge("step_time", "step time", "ns", (run) => run.measuredNs, thresholds.stepTime),
    judge("peak_memory", "peak memory", "bytes", (run) => run.peakBytes, thresholds.peakMemory),
    ...series.operators.map((name, index) =>
      judge(
        "operator",
        `op ${name}`,
        "ns",
        (run) => run.operatorNs[index] as number,
        thresholds.operator,
        name,
      ),
    ),
  ];
  return {
    schema: "candle-graph/regress/1",
    series,
    baselineRuns: baselineRuns.map((run) => run.runId),
    candidateRuns: candidateRuns.map((run) => run.runId),
    excludedRuns,
    settings: { baseline, candidate, topOperators: series.operators.length, alpha, bandK, thresholds },
    metrics,
    regressed: metrics.some((metric) => metric.verdict?.status === "regression"),
  };
}
