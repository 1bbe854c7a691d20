// The cost of every span of a trace as columns over its span table (spec §16 "Graph"): totals and
// self times computed once, children before parents; a row becomes a SpanCost object only when asked.
// The slowest and heaviest rankings of `queryTrace` are read from the same columns.
import { type ExecutionStep, type SpanKind, saturateU64, type U64 } from "@cg/schema/core";
import type { SpanCost, SpanCostOptions } from "./span-cost.js";
import type { SpanOpTotals } from "./span-op-totals.js";
import type { SpanTable } from "./span-table.js";
import { measuredSubtree, spanPath, spanTableTotals, TopList, u64Figure } from "./span-table-costs.js";
import type { SpanTableStructure } from "./span-table-health.js";
import type { SpanRecord } from "./trace-document.js";

/** The cost of every span of a trace, one row per span in order of its `span_start` (see `rowsInIdOrder`). */
export class SpanCostColumns {
  readonly #table: SpanTable;
  readonly #structure: SpanTableStructure;
  readonly #totals: ReturnType<typeof spanTableTotals>;
  readonly #inside: Uint8Array;
  readonly #ops: SpanOpTotals;
  #idOrder: Int32Array | undefined;

  /** @internal */
  constructor(table: SpanTable, structure: SpanTableStructure, ops: SpanOpTotals, options: SpanCostOptions) {
    this.#table = table;
    this.#structure = structure;
    this.#ops = ops;
    this.#totals = spanTableTotals(table, structure, ops, options);
    this.#inside = measuredSubtree(table, structure.offsets, structure.children);
  }

  get size(): number {
    return this.#table.size;
  }

  /** Every row, ordered by span id in code-point order: the order of a document's `spans`. */
  rowsInIdOrder(): Int32Array {
    if (this.#idOrder === undefined) {
      const rows = new Int32Array(this.size);
      for (let row = 0; row < rows.length; row++) rows[row] = row;
      const ids = this.#table.ids;
      this.#idOrder = rows.sort((left, right) => ids.compare(left, right));
    }
    return this.#idOrder;
  }

  /** The row of the span with this id, or -1. */
  rowOf(id: string): number {
    const row = this.#table.ids.get(id);
    return row < this.#table.size ? row : -1;
  }

  id(row: number): string {
    return this.#table.ids.valueAt(row);
  }

  name(row: number): string {
    return this.#table.name(row);
  }

  /** Names from the topmost ancestor down to the span, joined with `/`. */
  path(row: number): string {
    return spanPath(this.#table, row);
  }

  kind(row: number): SpanKind {
    return this.#table.kind(row);
  }

  step(row: number): ExecutionStep | undefined {
    return this.#table.step(row);
  }

  measured(row: number): boolean {
    return this.#table.measured(row);
  }

  closed(row: number): boolean {
    return this.#table.closed(row);
  }

  /** The parent's row; -1 for a root or a parent that never started. */
  parent(row: number): number {
    const parent = this.#table.parent(row);
    return parent >= 0 ? parent : -1;
  }

  depth(row: number): number {
    return this.#structure.depth[row] as number;
  }

  inMeasuredSubtree(row: number): boolean {
    return this.#inside[row] === 1;
  }

  startNs(row: number): U64 {
    return this.#table.startU64(row);
  }

  totalNs(row: number): U64 {
    return u64Figure(this.#totals.total(row));
  }

  selfNs(row: number): U64 {
    return u64Figure(this.#totals.selfTime(row));
  }

  opCount(row: number): number {
    return this.#ops.count(row);
  }

  opNs(row: number): U64 {
    return u64Figure(this.#ops.ns(row));
  }

  opBytes(row: number): U64 {
    return u64Figure(this.#ops.bytes(row));
  }

  /** @internal The exact total time, unsaturated (sums over spans stay exact). */
  exactTotalNs(row: number): bigint {
    return this.#totals.total(row);
  }

  /** @internal The exact self time, unsaturated. */
  exactSelfNs(row: number): bigint {
    return this.#totals.selfTime(row);
  }

  /** @internal The exact own op bytes, unsaturated. */
  exactOpBytes(row: number): bigint {
    return this.#ops.bytes(row);
  }

  /** The span as the document's `spans` holds it (duration and parent id included). */
  record(row: number): SpanRecord {
    return this.#table.record(row);
  }

  /** The row as `spanCosts` lists it. */
  cost(row: number): SpanCost {
    const cost: SpanCost = {
      id: this.id(row),
      name: this.name(row),
      path: this.path(row),
      kind: this.kind(row),
      depth: this.depth(row),
      measured: this.measured(row),
      in_measured_subtree: this.inMeasuredSubtree(row),
      total_ns: this.totalNs(row),
      self_ns: this.selfNs(row),
      op_count: this.opCount(row),
      op_bytes: this.opBytes(row),
      op_ns: this.opNs(row),
    };
    const step = this.step(row);
    if (step !== undefined) cost.step = step;
    return cost;
  }
}

export interface SpanRankings {
  /** Spans of the measured subtree by self time, descending (`queryTrace` "slowest"). */
  slowest: SpanCost[];
  /** Spans of the measured subtree by their own ops' bytes, descending ("heaviest"). */
  heaviest: SpanCost[];
}

/** Ranks the spans of the measured subtree like `queryTrace`; only the `limit` best become objects. */
export function rankSpanCosts(costs: SpanCostColumns, limit: number): SpanRankings {
  const slowest = new TopList<number>(limit);
  const heaviest = new TopList<number>(limit);
  for (let row = 0; row < costs.size; row++) {
    if (!costs.inMeasuredSubtree(row)) continue;
    const self = saturateU64(costs.exactSelfNs(row));
    if (slowest.admits(self)) slowest.offer(self, costs.id(row), () => row);
    const bytes = saturateU64(costs.exactOpBytes(row));
    if (heaviest.admits(bytes)) heaviest.offer(bytes, costs.id(row), () => row);
  }
  const cost = (row: number) => costs.cost(row);
  return { slowest: slowest.values().map(cost), heaviest: heaviest.values().map(cost) };
}
