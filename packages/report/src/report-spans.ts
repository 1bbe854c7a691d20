import type { ExecutionStep, SpanKind, U64 } from "@cg/schema/core";

/**
 * Every span's cost, row by row, as the report reads it: the `SpanCostColumns` of @cg/parser, the
 * same for a streamed trace (the summary's own) and a parsed one (`spanCostColumns`): typed
 * columns, no object per span.
 */
export interface ReportSpans {
  readonly size: number;
  /** Rows in the order a document lists its spans (by id); ties everywhere follow this order. */
  rowsInIdOrder(): ArrayLike<number>;
  /** The row of the span with this id, or -1. */
  rowOf(id: string): number;
  id(row: number): string;
  name(row: number): string;
  path(row: number): string;
  kind(row: number): SpanKind;
  step(row: number): ExecutionStep | undefined;
  measured(row: number): boolean;
  closed(row: number): boolean;
  /** The parent's row; -1 for a root or a parent that never started. */
  parent(row: number): number;
  depth(row: number): number;
  inMeasuredSubtree(row: number): boolean;
  startNs(row: number): U64;
  totalNs(row: number): U64;
  selfNs(row: number): U64;
  opCount(row: number): number;
  opBytes(row: number): U64;
}
