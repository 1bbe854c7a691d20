import type { Comparison, ComparisonAttribution, GradientSide } from "@cg/parser";
import { toExact } from "./exact-number.js";
import type { AttributionHalfReport, AttributionReport, ComparisonReport } from "./report-payload.js";

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
  if (comparison.attribution !== undefined) report.attribution = buildAttribution(comparison.attribution);
  return report;
}

/** The attribution in the page's terms: exact numbers, one detail string per part. */
export function buildAttribution(attribution: ComparisonAttribution): AttributionReport {
  const { time, peak } = attribution;
  const timeHalf: AttributionHalfReport = {
    delta: toExact(time.delta_ns),
    named_share: time.named_share,
    parts: time.parts.map((part) => ({
      rank: part.rank,
      label: part.label,
      baseline: toExact(part.baseline_ns),
      candidate: toExact(part.candidate_ns),
      delta: toExact(part.delta_ns),
      share: part.share,
      detail:
        part.kind === "op"
          ? `${part.baseline_calls ?? 0} → ${part.candidate_calls ?? 0} calls`
          : "own time outside ops",
    })),
    unmatched: {
      delta: toExact(time.unmatched.delta_ns),
      parts: time.unmatched.parts,
      largest: time.unmatched.largest.map((part) => `${part.side}: ${part.label}`),
    },
    other: {
      delta: toExact(time.other.delta_ns),
      parts: time.other.parts,
      parts_delta: toExact(time.other.parts_delta_ns),
      structure_delta: toExact(time.other.structure_delta_ns),
    },
  };
  if (time.delta_percent !== undefined) timeHalf.delta_percent = time.delta_percent;
  const peakHalf: AttributionReport["peak"] = {
    delta: toExact(peak.delta_bytes),
    named_share: peak.named_share,
    parts: peak.parts.map((part) => ({
      rank: part.rank,
      label: part.label,
      baseline: toExact(part.baseline_bytes),
      candidate: toExact(part.candidate_bytes),
      delta: toExact(part.delta_bytes),
      share: part.share,
      detail: `${part.baseline_allocations} → ${part.candidate_allocations} allocations${part.largest === undefined ? "" : `; largest ${part.largest.tensor_id} (${part.largest.side})`}`,
    })),
    unmatched: {
      delta: toExact(peak.unmatched.delta_bytes),
      parts: peak.unmatched.parts,
      largest: peak.unmatched.largest.map((part) => `${part.side}: ${part.label}`),
    },
    other: {
      delta: toExact(peak.other.delta_bytes),
      parts: peak.other.parts,
      parts_delta: toExact(peak.other.parts_delta_bytes),
      structure_delta: toExact(peak.other.structure_delta_bytes),
    },
    moved: peak.moved,
    by_category: peak.by_category.map((row) => ({
      category: row.category,
      baseline: toExact(row.baseline_bytes),
      candidate: toExact(row.candidate_bytes),
      delta: toExact(row.delta_bytes),
    })),
  };
  if (peak.delta_percent !== undefined) peakHalf.delta_percent = peak.delta_percent;
  if (peak.baseline_peak.span !== undefined) peakHalf.baseline_span = peak.baseline_peak.span;
  if (peak.candidate_peak.span !== undefined) peakHalf.candidate_span = peak.candidate_peak.span;
  return { time: timeHalf, peak: peakHalf };
}
