// What a comparison needs of one trace, and the keys its span and gradient figures go by: shared by
// the document and the streamed sides.
import type { GradientEvent, GradientState, RunMetadata, U64 } from "@cg/schema/core";
import type { AttributionSide } from "./compare-attribution-side.js";
import type { OperatorTable } from "./operator-stats.js";
import type { SpanCost } from "./span-cost.js";

export interface GradientSide {
  state: GradientState;
  norm?: number;
}

/** What a comparison needs of one trace: from a document here, or from a stream (`compareTraceFiles`). */
export interface ComparisonSide {
  run: RunMetadata;
  trusted: boolean;
  total_ns: U64;
  peak_bytes: U64;
  /** Summed totals of the measured subtree's spans, by `spanPathKey`. */
  span_totals: Map<string, bigint>;
  /** Each gradient's last fact, by `root/key`. */
  gradients: Map<string, GradientSide>;
  /** The full operator table (no limit), grouped as the comparison asks; no percentiles (unused). */
  operators: OperatorTable;
  /** What attribution and the gate need (own times, op times by path and signature, the peak's live set). */
  attribution?: AttributionSide;
}

const STEP_SUFFIX = { forward: "/Forward", backward: "/Backward", optimizer: "/Optimizer" } as const;

export function spanPathKey(cost: {
  path: string;
  kind: SpanCost["kind"];
  step?: SpanCost["step"] | undefined;
}): string {
  // Joined, not concatenated: the key is held for every span, as one flat string.
  const suffix = cost.step === undefined ? "" : STEP_SUFFIX[cost.step];
  return [cost.path, " [", cost.kind, "]", suffix].join("");
}

/** The key of an allocation's span id that names no span. */
export const unknownSpanKey = (spanId: string): string => `(span ${spanId}, not in the trace)`;

/** Records a gradient fact (a later fact of the same parameter replaces an earlier one). */
export function addGradient(map: Map<string, GradientSide>, gradient: GradientEvent): void {
  const side: GradientSide = { state: gradient.state };
  if (gradient.norm !== undefined) side.norm = gradient.norm;
  map.set([gradient.root, gradient.key].join("/"), side);
}
