// `cg-trace regress` output: the verdict table and the attribution of each flagged change as text,
// and the same as GitHub Actions workflow commands (`--format ci`).

import { formatAttribution } from "@cg/parser";
import type { RegressMetric, RegressReport } from "@cg/sql";
import { escapeControl } from "../format/escape-control.js";
import type { Style } from "../format/style.js";
import { renderColumns, renderFacts } from "../format/table.js";
import { formatBytesShort, formatDuration, formatPercent } from "../format/units.js";
import type { AttributionPart, ChangeAttribution } from "./attribution.js";

export interface FlaggedChange {
  metric: RegressMetric;
  attribution?: ChangeAttribution;
}

/** A metric value (ns or bytes, a number) for people. */
export function formatValue(value: number, unit: RegressMetric["unit"]): string {
  if (!Number.isFinite(value)) return "n/a";
  const whole = BigInt(Math.round(Math.abs(value)));
  const text = unit === "ns" ? formatDuration(whole) : formatBytesShort(whole);
  return value < 0 ? `-${text}` : text;
}

export function formatSigned(value: number, unit: RegressMetric["unit"]): string {
  return `${value >= 0 ? "+" : ""}${formatValue(value, unit)}`;
}

function thresholdText(
  threshold: { percent: number } | { absolute: number },
  unit: RegressMetric["unit"],
): string {
  return "percent" in threshold ? `${threshold.percent}%` : formatValue(threshold.absolute, unit);
}

/** `run-3 … run-22 (20)`. */
function windowText(runs: readonly string[]): string {
  if (runs.length === 1) return `${runs[0]} (1)`;
  return `${runs[0]} … ${runs[runs.length - 1]} (${runs.length})`;
}

/** Which conditions held, for an unchanged metric that moved: why no verdict. */
function whyUnchanged(metric: RegressMetric): string {
  const verdict = metric.verdict;
  if (verdict === undefined) return "no data";
  const missing = [
    verdict.beyondThreshold ? "" : "below threshold",
    verdict.outsideBand ? "" : "inside noise band",
    verdict.significant ? "" : "not significant",
  ].filter((part) => part !== "");
  // Say why only when the series moved in some way: all three missing is plain noise.
  return missing.length === 0 || missing.length === 3 ? "unchanged" : `unchanged (${missing.join(", ")})`;
}

export function renderRegressText(
  report: RegressReport,
  changes: readonly FlaggedChange[],
  style: Style,
): string {
  const out: string[] = [];
  const regressions = report.metrics.filter((metric) => metric.verdict?.status === "regression").length;
  const verdict = report.regressed
    ? style.bad(`REGRESSION (${regressions} of ${report.metrics.length} metrics)`)
    : style.good("OK");
  const first = report.series.runs.find((run) => run.runId === report.candidateRuns[0]);
  const fleet = first === undefined ? "" : ` — ${first.entrypoint}, ${first.phase}, ${first.device}`;
  out.push(`${style.bold("Regress")}: ${verdict}${escapeControl(fleet)}\n`);
  const { settings } = report;
  const order = report.series.order.by === "tag" ? `tag ${report.series.order.tag}` : "timestamp";
  out.push(
    renderFacts([
      [
        "runs",
        escapeControl(
          `${report.series.runs.length}, ordered by ${order}${report.excludedRuns.length > 0 ? `, ${report.excludedRuns.length} untrusted left out` : ""}`,
        ),
      ],
      ["baseline", escapeControl(windowText(report.baselineRuns))],
      ["candidate", escapeControl(windowText(report.candidateRuns))],
      [
        "rule",
        `flag when the medians differ by more than the threshold (step time ${thresholdText(settings.thresholds.stepTime, "ns")}, peak memory ${thresholdText(settings.thresholds.peakMemory, "bytes")}, operators ${thresholdText(settings.thresholds.operator, "ns")}), lie outside the baseline median ± ${settings.bandK}·1.4826·MAD, and a one-sided Mann-Whitney U test gives p ≤ ${settings.alpha}`,
      ],
    ]),
  );
  out.push("\n");
  out.push(
    renderColumns(
      [
        { header: "metric", cell: (metric: RegressMetric) => escapeControl(metric.label) },
        {
          header: "baseline median",
          align: "right",
          cell: (metric) =>
            metric.verdict === undefined ? "—" : formatValue(metric.verdict.baselineMedian, metric.unit),
        },
        {
          header: "MAD",
          align: "right",
          cell: (metric) =>
            metric.verdict === undefined ? "—" : formatValue(metric.verdict.baselineMad, metric.unit),
        },
        {
          header: "candidate median",
          align: "right",
          cell: (metric) =>
            metric.verdict === undefined ? "—" : formatValue(metric.verdict.candidateMedian, metric.unit),
        },
        {
          header: "delta",
          align: "right",
          cell: (metric) =>
            metric.verdict === undefined
              ? "—"
              : `${formatSigned(metric.verdict.delta, metric.unit)} (${formatPercent(metric.verdict.deltaPercent)})`,
        },
        {
          header: "p",
          align: "right",
          cell: (metric) => (metric.verdict === undefined ? "—" : metric.verdict.pValue.toPrecision(2)),
        },
        {
          header: "verdict",
          cell: (metric) => {
            const status = metric.verdict?.status;
            if (status === "regression") return style.bad("REGRESSION");
            if (status === "improvement") return style.good("improvement");
            return whyUnchanged(metric);
          },
        },
      ],
      report.metrics,
    ),
  );
  for (const change of changes) out.push(renderAttribution(change, style));
  return out.join("");
}

function renderAttribution(change: FlaggedChange, style: Style): string {
  const out: string[] = [];
  const attribution = change.attribution;
  const pair =
    change.metric.representative === undefined
      ? ""
      : `${change.metric.representative.baseline.runId} → ${change.metric.representative.candidate.runId}`;
  out.push(
    `\n${style.bold(`Attribution: ${escapeControl(change.metric.label)}`)} (${escapeControl(pair)}, the runs nearest each window's median)\n`,
  );
  if (attribution === undefined) return out.join("");
  if (attribution.unavailable !== undefined) {
    out.push(`  ${style.warn("unavailable")}: ${escapeControl(attribution.unavailable)}\n`);
    return out.join("");
  }
  out.push(
    renderFacts([
      ["step time delta", formatSigned(attribution.totalDeltaNs ?? 0, "ns")],
      ["peak memory delta", formatSigned(attribution.peakDeltaBytes ?? 0, "bytes")],
    ]),
  );
  if (attribution.explanation !== undefined) {
    // The same ranked explanation `cg-trace compare` prints: time parts, then peak-memory parts,
    // each with its unmatched and other rows.
    const text = formatAttribution(attribution.explanation, { limit: 5, name: escapeControl });
    out.push(`${text.replace(/^/gm, "  ")}\n`);
  } else if (attribution.parts.length > 0) {
    out.push(
      renderColumns(
        [
          { header: "", cell: (part) => part.kind },
          { header: "name", cell: (part) => escapeControl(part.name) },
          { header: "baseline", align: "right", cell: (part) => formatValue(part.baseline, "ns") },
          { header: "candidate", align: "right", cell: (part) => formatValue(part.candidate, "ns") },
          { header: "delta", align: "right", cell: (part) => formatSigned(part.delta, "ns") },
          { header: "%", align: "right", cell: (part) => formatPercent(part.deltaPercent) },
        ],
        attribution.parts,
      ),
    );
  }
  return out.join("");
}

/** Escapes a workflow command's message (`%`, CR, LF) or, with `property`, a property value too. */
function escapeWorkflow(text: string, property = false): string {
  const escaped = text.replaceAll("%", "%25").replaceAll("\r", "%0D").replaceAll("\n", "%0A");
  return property ? escaped.replaceAll(":", "%3A").replaceAll(",", "%2C") : escaped;
}

/**
 * The parts a one-line annotation names: the two largest operator changes, then the largest span
 * change below the measured region itself (whose delta is the whole step-time delta).
 */
function largestParts(attribution: ChangeAttribution | undefined): string[] | undefined {
  if (attribution === undefined) return undefined;
  const bySize = (left: AttributionPart, right: AttributionPart) =>
    Math.abs(right.delta) - Math.abs(left.delta);
  const ops = attribution.parts
    .filter((part) => part.kind === "op")
    .sort(bySize)
    .slice(0, 2);
  const spans = attribution.parts
    .filter((part) => part.kind === "span" && part.delta !== attribution.totalDeltaNs)
    .sort(bySize)
    .slice(0, 1);
  return [...ops, ...spans].map((part) => `${part.kind} ${part.name} ${formatSigned(part.delta, "ns")}`);
}

/** GitHub Actions workflow commands: an error per regression, a notice per improvement, a summary. */
export function renderRegressCi(report: RegressReport, changes: readonly FlaggedChange[]): string {
  const lines: string[] = [];
  for (const change of changes) {
    const { metric } = change;
    const verdict = metric.verdict;
    if (verdict === undefined) continue;
    const level = verdict.status === "regression" ? "error" : "notice";
    const top = largestParts(change.attribution);
    const message = [
      `${metric.label} ${verdict.status}: ${formatSigned(verdict.delta, metric.unit)} (${formatPercent(verdict.deltaPercent)}), median ${formatValue(verdict.baselineMedian, metric.unit)} → ${formatValue(verdict.candidateMedian, metric.unit)}, p = ${verdict.pValue.toPrecision(2)}`,
      `candidate ${windowText(report.candidateRuns)} against baseline ${windowText(report.baselineRuns)}`,
      top === undefined || top.length === 0
        ? change.attribution?.unavailable === undefined
          ? ""
          : `attribution unavailable: ${change.attribution.unavailable}`
        : `largest changes: ${top.join("; ")}`,
    ].filter((part) => part !== "");
    lines.push(
      `::${level} title=${escapeWorkflow(`cg-trace regress: ${metric.label}`, true)}::${escapeWorkflow(message.join("\n"))}`,
    );
  }
  const regressions = report.metrics.filter((metric) => metric.verdict?.status === "regression").length;
  lines.push(
    report.regressed
      ? `cg-trace regress: REGRESSION in ${regressions} of ${report.metrics.length} metrics`
      : `cg-trace regress: OK (${report.metrics.length} metrics)`,
  );
  return `${lines.join("\n")}\n`;
}
