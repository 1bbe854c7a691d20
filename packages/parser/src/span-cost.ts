// What a span costs (spec §16 "Graph"): the figures of one span, shared by the document and the
// streamed cost tables.
import type { ExecutionStep, SpanKind, U64 } from "@cg/schema/core";

export interface SpanCost {
  id: string;
  name: string;
  /** Names from the topmost ancestor down to this span, joined with `/`. */
  path: string;
  kind: SpanKind;
  step?: ExecutionStep;
  depth: number;
  measured: boolean;
  /** True for the measured span and everything below it. */
  in_measured_subtree: boolean;
  total_ns: U64;
  self_ns: U64;
  op_count: number;
  /** Sum of the span's own ops' resolved `storage_bytes` (saturating at 2^64 − 1). */
  op_bytes: U64;
  /** Sum of the span's own ops' `duration_ns`. */
  op_ns: U64;
}

export interface SpanCostOptions {
  /**
   * How children's time is taken off a parent's total: `"union"` (default) subtracts the union of
   * the children's intervals, so overlapping (concurrent) children are not subtracted twice;
   * `"reference"` subtracts the plain sum like candle-graph 0.7.0.
   */
  compat?: "union" | "reference";
}
