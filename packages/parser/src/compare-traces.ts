// Comparison of two traces (spec §16 "Comparison"): comparability rules, total and peak deltas,
// span deltas by semantic path, gradient changes.

import { compareCodePoints, type U64, u64ToBigInt } from "@cg/schema/core";
import { attributeComparison } from "./compare-attribution.js";
import type { AttributionSide } from "./compare-attribution-side.js";
import type { ComparisonAttribution } from "./compare-attribution-types.js";
import { ComparisonInputError } from "./compare-error.js";
import { evaluateGate, type GateResult } from "./compare-gate.js";
import type { GateRule } from "./compare-gate-rules.js";
import type { ComparisonSide, GradientSide } from "./comparison-side.js";
import { ComparisonSideFold } from "./comparison-side-fold.js";
import { documentSummary } from "./document-summary.js";
import { documentHealth } from "./health.js";
import type { HealthOptions } from "./health-issue.js";
import { compareOperators, type OperatorComparison } from "./operator-compare.js";
import { type OperatorGroupField, operatorTable } from "./operator-stats.js";
import { type SignedInteger, signedInteger } from "./signed-integer.js";
import type { TraceDocument } from "./trace-document.js";

export {
  addGradient,
  type ComparisonSide,
  type GradientSide,
  spanPathKey,
  unknownSpanKey,
} from "./comparison-side.js";
export type { SignedInteger } from "./signed-integer.js";

/** Tags that describe the build rather than the workload: a difference only warns. */
export const DESCRIPTIVE_TAGS: readonly string[] = ["source_revision", "source_commit", "build_id"];

export interface ComparedRun {
  run_id: string;
  entrypoint: string;
  trusted: boolean;
  total_ns: U64;
  peak_bytes: U64;
}

export interface SpanDelta {
  /** `a/b/c [<span kind>]`, with `/Forward`, `/Backward` or `/Optimizer` appended for step spans. */
  path: string;
  baseline_ns: U64;
  candidate_ns: U64;
  delta_ns: SignedInteger;
  /** Absent when the baseline is 0. */
  delta_percent?: number;
}

export interface GradientChange {
  /** `root/key`. */
  key: string;
  baseline?: GradientSide;
  candidate?: GradientSide;
}

export interface Comparison {
  schema: "candle-graph/comparison/1";
  comparable: boolean;
  /** Why the traces are not comparable (empty when comparable). */
  reasons: string[];
  /** Differences that do not prevent comparison (descriptive tags). */
  warnings: string[];
  baseline: ComparedRun;
  candidate: ComparedRun;
  total_delta_ns: SignedInteger;
  total_delta_percent?: number;
  peak_delta_bytes: SignedInteger;
  peak_delta_percent?: number;
  /** Measured-subtree spans aggregated by path, by absolute delta descending, at most 50. */
  span_deltas: SpanDelta[];
  /** Only changed gradients, by key, at most 100. */
  gradient_changes: GradientChange[];
  /** Per-operator deltas of calls, total and mean time, and operators that appeared or disappeared. */
  operators: OperatorComparison;
  /** Which spans, ops, categories and allocations explain the time and peak deltas (when both sides carry attribution inputs). */
  attribution?: ComparisonAttribution;
  /** The gate's checks, when rules were given (`CompareOptions.failOn`). */
  gate?: GateResult;
}

export interface CompareOptions extends HealthOptions {
  /** Most span deltas listed (default 50). */
  spanLimit?: number;
  /** Most gradient changes listed (default 100). */
  gradientLimit?: number;
  /** Most operator deltas listed (default 50). */
  operatorLimit?: number;
  /** Operator deltas per op name and these fields (default: op name only). */
  operatorGroupBy?: readonly OperatorGroupField[];
  /** Most named parts in each half of the attribution (default 20). */
  attributionLimit?: number;
  /** Gate rules (`parseGateRules`) checked against the comparison; the result is `gate`. */
  failOn?: readonly GateRule[];
}

function percent(delta: bigint, base: bigint): number | undefined {
  return base === 0n ? undefined : (Number(delta) / Number(base)) * 100;
}

/** The comparison side of a parsed trace: its events folded as a stream's are. */
export function documentSide(document: TraceDocument, options: CompareOptions = {}): ComparisonSide {
  const healthOptions: HealthOptions = options.compat === undefined ? {} : { compat: options.compat };
  const fold = new ComparisonSideFold();
  const stream = documentSummary(
    document,
    { ...healthOptions, spanCosts: true },
    (event) => fold.add(event),
    (table) => fold.spans.use(table),
  );
  const side = fold.finish(stream);
  return {
    run: document.run,
    trusted: documentHealth(document, stream.health).trusted,
    total_ns: side.total_ns,
    peak_bytes: side.peak_bytes,
    span_totals: side.span_totals,
    gradients: side.gradients,
    operators: operatorTable(document, { groupBy: options.operatorGroupBy ?? [], percentiles: false }),
    attribution: side.attribution,
  };
}

function sameGradient(left: GradientSide | undefined, right: GradientSide | undefined): boolean {
  if (left === undefined || right === undefined) return left === right;
  return left.state === right.state && Object.is(left.norm, right.norm);
}

function comparabilityReasons(
  baseline: Omit<ComparisonSide, "operators">,
  candidate: Omit<ComparisonSide, "operators">,
  reasons: string[],
  warnings: string[],
) {
  const fields = [
    ["entrypoint", baseline.run.entrypoint, candidate.run.entrypoint],
    ["phase", baseline.run.phase, candidate.run.phase],
    ["device", baseline.run.device, candidate.run.device],
    ["timing_mode", baseline.run.timing_mode, candidate.run.timing_mode],
    [
      "measured_region_device_synchronized",
      baseline.run.measured_region_device_synchronized,
      candidate.run.measured_region_device_synchronized,
    ],
    ["warmup_steps", baseline.run.warmup_steps, candidate.run.warmup_steps],
  ] as const;
  for (const [field, left, right] of fields) {
    if (left !== right)
      reasons.push(`${field} differs: baseline ${String(left)}, candidate ${String(right)}`);
  }
  const keys = new Set([...Object.keys(baseline.run.tags), ...Object.keys(candidate.run.tags)]);
  for (const key of [...keys].sort(compareCodePoints)) {
    const left = Object.hasOwn(baseline.run.tags, key) ? baseline.run.tags[key] : undefined;
    const right = Object.hasOwn(candidate.run.tags, key) ? candidate.run.tags[key] : undefined;
    if (left === right) continue;
    const text = `tag ${JSON.stringify(key)} differs: baseline ${left === undefined ? "absent" : JSON.stringify(left)}, candidate ${right === undefined ? "absent" : JSON.stringify(right)}`;
    (DESCRIPTIVE_TAGS.includes(key) ? warnings : reasons).push(text);
  }
}

/** Compares a candidate trace with a baseline. Works on untrusted traces (they are marked not comparable). */
export function compareTraces(
  baseline: TraceDocument,
  candidate: TraceDocument,
  options: CompareOptions = {},
): Comparison {
  return compareSides(documentSide(baseline, options), documentSide(candidate, options), options);
}

/** Compares two traces from what each side holds (see `documentSide` and `compareTraceFiles`). */
export function compareSides(
  baseline: ComparisonSide,
  candidate: ComparisonSide,
  options: CompareOptions = {},
): Comparison {
  const operators = compareOperators(baseline.operators, candidate.operators, options.operatorLimit ?? 50);
  return compareSidesWith(baseline, candidate, options, operators);
}

/** `compareSides` with the operator comparison made by the caller (a stream joins columns). */
export function compareSidesWith(
  baseline: Omit<ComparisonSide, "operators">,
  candidate: Omit<ComparisonSide, "operators">,
  options: CompareOptions,
  operators: OperatorComparison,
): Comparison {
  const reasons: string[] = [];
  const warnings: string[] = [];
  if (!baseline.trusted) reasons.push("baseline trace is structurally untrusted");
  if (!candidate.trusted) reasons.push("candidate trace is structurally untrusted");
  comparabilityReasons(baseline, candidate, reasons, warnings);

  const describe = (side: Omit<ComparisonSide, "operators">): ComparedRun => ({
    run_id: side.run.run_id,
    entrypoint: side.run.entrypoint,
    trusted: side.trusted,
    total_ns: side.total_ns,
    peak_bytes: side.peak_bytes,
  });
  const baselineRun = describe(baseline);
  const candidateRun = describe(candidate);
  const baseTotal = u64ToBigInt(baselineRun.total_ns);
  const totalDelta = u64ToBigInt(candidateRun.total_ns) - baseTotal;
  const basePeak = u64ToBigInt(baselineRun.peak_bytes);
  const peakDelta = u64ToBigInt(candidateRun.peak_bytes) - basePeak;

  const baseSpans = baseline.span_totals;
  const candidateSpans = candidate.span_totals;
  const spanKeys = new Set([...baseSpans.keys(), ...candidateSpans.keys()]);
  const spanDeltas = [...spanKeys]
    .map((path) => {
      const before = baseSpans.get(path) ?? 0n;
      const after = candidateSpans.get(path) ?? 0n;
      return { path, before, after, delta: after - before };
    })
    .sort((left, right) => {
      const a = left.delta < 0n ? -left.delta : left.delta;
      const b = right.delta < 0n ? -right.delta : right.delta;
      return a > b ? -1 : a < b ? 1 : compareCodePoints(left.path, right.path);
    })
    .slice(0, options.spanLimit ?? 50)
    .map(({ path, before, after, delta }) => {
      const entry: SpanDelta = {
        path,
        baseline_ns: signedInteger(before) as U64,
        candidate_ns: signedInteger(after) as U64,
        delta_ns: signedInteger(delta),
      };
      const share = percent(delta, before);
      if (share !== undefined) entry.delta_percent = share;
      return entry;
    });

  const baseGradients = baseline.gradients;
  const candidateGradients = candidate.gradients;
  const gradientKeys = [...new Set([...baseGradients.keys(), ...candidateGradients.keys()])].sort(
    compareCodePoints,
  );
  const gradientChanges: GradientChange[] = [];
  for (const key of gradientKeys) {
    const before = baseGradients.get(key);
    const after = candidateGradients.get(key);
    if (sameGradient(before, after)) continue;
    const change: GradientChange = { key };
    if (before !== undefined) change.baseline = before;
    if (after !== undefined) change.candidate = after;
    gradientChanges.push(change);
    if (gradientChanges.length >= (options.gradientLimit ?? 100)) break;
  }

  const comparison: Comparison = {
    schema: "candle-graph/comparison/1",
    comparable: reasons.length === 0,
    reasons,
    warnings,
    baseline: baselineRun,
    candidate: candidateRun,
    total_delta_ns: signedInteger(totalDelta),
    peak_delta_bytes: signedInteger(peakDelta),
    span_deltas: spanDeltas,
    gradient_changes: gradientChanges,
    operators,
  };
  if (baseline.attribution !== undefined && candidate.attribution !== undefined) {
    comparison.attribution = attributeComparison(
      baseline,
      candidate,
      options.attributionLimit === undefined ? {} : { partLimit: options.attributionLimit },
    );
  }
  if (options.failOn !== undefined) {
    if (baseline.attribution === undefined || candidate.attribution === undefined) {
      throw new ComparisonInputError({
        code: "no_attribution_inputs",
        message:
          "gate: a comparison side carries no attribution inputs (build it with documentSide or streamedSide)",
      });
    }
    const gateSide = (side: Omit<ComparisonSide, "operators">, attribution: AttributionSide) => ({
      total_ns: u64ToBigInt(side.total_ns),
      peak_bytes: u64ToBigInt(side.peak_bytes),
      span_totals: side.span_totals,
      attribution,
    });
    comparison.gate = evaluateGate(
      options.failOn,
      gateSide(baseline, baseline.attribution),
      gateSide(candidate, candidate.attribution),
    );
  }
  const totalPercent = percent(totalDelta, baseTotal);
  if (totalPercent !== undefined) comparison.total_delta_percent = totalPercent;
  const peakPercent = percent(peakDelta, basePeak);
  if (peakPercent !== undefined) comparison.peak_delta_percent = peakPercent;
  return comparison;
}
