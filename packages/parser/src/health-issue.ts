// What a health check reports (spec §12): issues, coverage and the trusted verdict.
export type HealthSeverity = "error" | "warning";

export interface HealthIssue {
  severity: HealthSeverity;
  code: string;
  message: string;
  /** The span the issue is about, for span-level checks. */
  span_id?: string;
}

export interface HealthCoverage {
  spans: number;
  closed_spans: number;
  root_spans: number;
  measured_spans: number;
  operations: number;
  tensors: number;
  memory_events: number;
  device_memory_samples: number;
  gradients: number;
  edges: number;
  forward_spans: number;
  backward_spans: number;
  optimizer_spans: number;
}

export interface HealthReport {
  /** True iff there is no issue of severity `error`. */
  trusted: boolean;
  issues: HealthIssue[];
  coverage: HealthCoverage;
}

export interface HealthOptions {
  /**
   * How `children_exceed_parent` measures a span's children. `"union"` (default) takes the union
   * of the children's intervals, so concurrent (async, multi-stream) children that overlap are not
   * counted twice; `"reference"` sums their durations like candle-graph 0.7.0 (spec §17 Q1). The two
   * agree whenever siblings do not overlap.
   */
  compat?: "union" | "reference";
}

export function healthError(code: string, message: string, spanId?: string): HealthIssue {
  return spanId === undefined
    ? { severity: "error", code, message }
    : { severity: "error", code, message, span_id: spanId };
}

export function healthWarning(code: string, message: string): HealthIssue {
  return { severity: "warning", code, message };
}

export interface SpanCounts {
  roots: number;
  measured: number;
  closed: number;
  forward: number;
  backward: number;
  optimizer: number;
}

export function unknownSpanIssue(group: "operation" | "tensor" | "memory", spanId: string): HealthIssue {
  return healthError("unknown_span", `${group} evidence refers to missing span \`${spanId}\``, spanId);
}

export function unknownEdgeSpanIssue(from: string, to: string): HealthIssue {
  return healthError("unknown_edge_span", `edge \`${from}\` -> \`${to}\` refers to a missing span`);
}

export function healthReport(
  issues: HealthIssue[],
  spanCount: number,
  counts: SpanCounts,
  evidence: Pick<
    HealthCoverage,
    "operations" | "tensors" | "memory_events" | "device_memory_samples" | "gradients" | "edges"
  >,
): HealthReport {
  return {
    trusted: !issues.some((issue) => issue.severity === "error"),
    issues,
    coverage: {
      spans: spanCount,
      closed_spans: counts.closed,
      root_spans: counts.roots,
      measured_spans: counts.measured,
      ...evidence,
      forward_spans: counts.forward,
      backward_spans: counts.backward,
      optimizer_spans: counts.optimizer,
    },
  };
}
