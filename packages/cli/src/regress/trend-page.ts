// The regress report as the trend page's plain input: runs with their window, one series per metric.
import type { TrendPageInput, TrendSeries } from "@cg/report";
import type { RegressMetric, RegressReport, RunPoint } from "@cg/sql";
import { formatPercent } from "../format/units.js";
import { formatSigned, formatValue } from "./render-regress.js";

function metricValue(metric: RegressMetric, report: RegressReport): (run: RunPoint) => number {
  if (metric.kind === "step_time") return (run) => run.measuredNs;
  if (metric.kind === "peak_memory") return (run) => run.peakBytes;
  const index = report.series.operators.indexOf(metric.operator ?? "");
  return (run) => run.operatorNs[index] ?? Number.NaN;
}

function seriesOf(metric: RegressMetric, report: RegressReport): TrendSeries {
  const verdict = metric.verdict;
  const series: TrendSeries = {
    id: metric.kind === "operator" ? `op:${metric.operator}` : metric.kind,
    title: metric.label,
    unit: metric.unit,
    values: report.series.runs.map(metricValue(metric, report)),
    status: verdict?.status ?? "no data",
  };
  if (verdict === undefined) return series;
  return {
    ...series,
    band: { median: verdict.baselineMedian, low: verdict.bandLow, high: verdict.bandHigh },
    detail: `median ${formatValue(verdict.baselineMedian, metric.unit)} → ${formatValue(verdict.candidateMedian, metric.unit)}: ${formatSigned(verdict.delta, metric.unit)} (${formatPercent(verdict.deltaPercent)}), p = ${verdict.pValue.toPrecision(2)}`,
  };
}

export function trendPageInput(report: RegressReport, title: string | undefined): TrendPageInput {
  const baseline = new Set(report.baselineRuns);
  const candidate = new Set(report.candidateRuns);
  const first = report.series.runs[0];
  const regressions = report.metrics.filter((metric) => metric.verdict?.status === "regression");
  return {
    title: title ?? `cg-trace regress: ${first === undefined ? "fleet" : first.entrypoint}`,
    facts: [
      [
        "runs",
        `${report.series.runs.length} (ordered by ${report.series.order.by === "tag" ? `tag ${report.series.order.tag}` : "timestamp"})`,
      ],
      ["windows", `${report.baselineRuns.length} baseline, ${report.candidateRuns.length} candidate`],
      [
        "verdict",
        regressions.length === 0
          ? "no regression"
          : `regression in ${regressions.map((metric) => metric.label).join(", ")}`,
      ],
      [
        "rule",
        `medians beyond the threshold, outside median ± ${report.settings.bandK}·1.4826·MAD, Mann-Whitney p ≤ ${report.settings.alpha}`,
      ],
    ],
    runs: report.series.runs.map((run) => ({
      runId: run.runId,
      label: run.orderKey,
      trusted: run.trusted,
      ...(baseline.has(run.runId)
        ? { window: "baseline" as const }
        : candidate.has(run.runId)
          ? { window: "candidate" as const }
          : {}),
    })),
    series: report.metrics.map((metric) => seriesOf(metric, report)),
  };
}
