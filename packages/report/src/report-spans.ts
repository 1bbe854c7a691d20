import type { SpanCost, SpanRecord } from "@cg/parser";
import type { ExecutionStep, SpanKind, U64 } from "@cg/schema/core";

/**
 * Every span's cost, row by row, as the report reads it: `SpanCostColumns` of @cg/parser for a
 * streamed trace (typed columns, no object per span), or {@link DocumentSpans} for a parsed one.
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

/** The spans of a parsed document with their `spanCosts` (both in the document's id order). */
export class DocumentSpans implements ReportSpans {
  readonly #costs: readonly SpanCost[];
  readonly #records: readonly SpanRecord[];
  readonly #rows: Map<string, number>;
  readonly #order: number[];

  constructor(records: readonly SpanRecord[], costs: readonly SpanCost[]) {
    this.#records = records;
    this.#costs = costs;
    this.#rows = new Map(records.map((record, row) => [record.id, row]));
    this.#order = Array.from({ length: costs.length }, (_, row) => row);
  }

  get size(): number {
    return this.#costs.length;
  }

  rowsInIdOrder(): ArrayLike<number> {
    return this.#order;
  }

  rowOf(id: string): number {
    return this.#rows.get(id) ?? -1;
  }

  #cost(row: number): SpanCost {
    return this.#costs[row] as SpanCost;
  }

  id(row: number): string {
    return this.#cost(row).id;
  }

  name(row: number): string {
    return this.#cost(row).name;
  }

  path(row: number): string {
    return this.#cost(row).path;
  }

  kind(row: number): SpanKind {
    return this.#cost(row).kind;
  }

  step(row: number): ExecutionStep | undefined {
    return this.#cost(row).step;
  }

  measured(row: number): boolean {
    return this.#cost(row).measured;
  }

  closed(row: number): boolean {
    return this.#records[row]?.closed ?? false;
  }

  parent(row: number): number {
    const parentId = this.#records[row]?.parent_id;
    return parentId === undefined ? -1 : this.rowOf(parentId);
  }

  depth(row: number): number {
    return this.#cost(row).depth;
  }

  inMeasuredSubtree(row: number): boolean {
    return this.#cost(row).in_measured_subtree;
  }

  startNs(row: number): U64 {
    return this.#records[row]?.start_ns ?? 0;
  }

  totalNs(row: number): U64 {
    return this.#cost(row).total_ns;
  }

  selfNs(row: number): U64 {
    return this.#cost(row).self_ns;
  }

  opCount(row: number): number {
    return this.#cost(row).op_count;
  }

  opBytes(row: number): U64 {
    return this.#cost(row).op_bytes;
  }
}
