import type { Comparison, GradientSide } from "@cg/parser";
import { toExact } from "./exact-number.js";
import type { ComparisonReport } from "./report-payload.js";

function describeGradient(side: GradientSide | undefined): string {
  if (side === undefined) return "absent";
  return side.norm === undefined ? side.state : `${side.state} (norm ${side.norm})`;
}

/** Per-path deltas the Comparison view lists. */
export const COMPARISON_OPTIONS = { spanLimit: 200 } as const;

/** The parser's comparison (spec §16 comparison/1, `COMPARISON_OPTIONS`), in the page's terms. */
export function buildComparison(comparison: Comparison): ComparisonReport {
  const report: ComparisonReport = {
    comparable: comparison.comparable,
    reasons: comparison.reasons,
    warnings: comparison.warnings,
    baseline_total_ns: toExact(comparison.baseline.total_ns),
    candidate_total_ns: toExact(comparison.candidate.total_ns),
    total_delta_ns: toExact(comparison.total_delta_ns),
    baseline_peak_bytes: toExact(comparison.baseline.peak_bytes),
    candidate_peak_bytes: toExact(comparison.candidate.peak_bytes),
    peak_delta_bytes: toExact(comparison.peak_delta_bytes),
    paths: comparison.span_deltas.map((delta) => {
      const row: ComparisonReport["paths"][number] = {
        path: delta.path,
        baseline_ns: toExact(delta.baseline_ns),
        candidate_ns: toExact(delta.candidate_ns),
        delta_ns: toExact(delta.delta_ns),
      };
      if (delta.delta_percent !== undefined) row.delta_percent = delta.delta_percent;
      return row;
    }),
    gradient_changes: comparison.gradient_changes.map((change) => ({
      key: change.key,
      baseline: describeGradient(change.baseline),
      candidate: describeGradient(change.candidate),
    })),
  };
  if (comparison.total_delta_percent !== undefined)
    report.total_delta_percent = comparison.total_delta_percent;
  return report;
}
