// `spanCosts` for a streamed trace: spans go into the compact SpanTable (tens of bytes per span,
// not an object each), ops only add to per-span typed sums, and the costs of every span are
// computed once at the end, children before parents, with the same rules and results as
// `spanCosts` on the whole document. Reading a cost makes no object unless `cost(row)` is asked.
import { resolveStorageBytes } from "@cg/memory";
import { type ExecutionStep, normalizeU64, type SpanKind, type TraceEvent, type U64 } from "@cg/schema/core";
import { IdTable } from "./id-table.js";
import type { SpanCost, SpanCostOptions } from "./span-cost.js";
import { SpanTable } from "./span-table.js";
import { measuredSubtree, SpanOpTotals, spanPath, spanTableTotals, u64Figure } from "./span-table-costs.js";
import { type SpanTableStructure, spanTableIssues } from "./span-table-health.js";
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

/**
 * Feed it the accepted events of a trace in file order (for example from `summarizeStream`'s
 * `onEvent`); `finish` gives every span's cost, equal to `spanCosts` of the parsed document.
 * Holds the span table and three typed sums per span; ops are not kept.
 */
export class SpanCostCollector {
  readonly #ids = new IdTable();
  readonly #spans = new SpanTable(this.#ids);
  readonly #ops = new SpanOpTotals();
  /** Ops of spans not started yet, by span id (added to the span when it starts). */
  readonly #early = new Map<string, { count: number; ns: bigint; bytes: bigint }>();

  /** Bytes held by the span table (columns and ids). */
  get byteLength(): number {
    return this.#spans.byteLength;
  }

  push(event: TraceEvent): void {
    switch (event.kind) {
      case "span_start": {
        const known = this.#ids.size;
        const row = this.#ids.intern(event.id);
        if (this.#ids.size === known) return; // a duplicate start: the first one counts
        this.#spans.start(row, event);
        const early = this.#early.get(event.id);
        if (early !== undefined) {
          this.#ops.add(row, normalizeU64(early.ns), normalizeU64(early.bytes), early.count);
          this.#early.delete(event.id);
        }
        return;
      }
      case "span_end": {
        const row = this.#ids.get(event.id);
        if (row >= 0) this.#spans.end(row, event);
        return;
      }
      case "op":
        this.pushOp(
          event.span_id,
          event.duration_ns,
          resolveStorageBytes(event.storage_bytes, event.shape, event.dtype),
        );
        return;
      default:
        return;
    }
  }

  /** An op's figures, read from columns (`storageBytes` already resolved from shape and dtype). */
  pushOp(spanId: string, durationNs: U64, storageBytes: U64): void {
    const row = this.#ids.get(spanId);
    if (row >= 0) {
      this.#ops.add(row, durationNs, storageBytes);
      return;
    }
    const early = this.#early.get(spanId) ?? { count: 0, ns: 0n, bytes: 0n };
    early.count++;
    early.ns += BigInt(durationNs);
    early.bytes += BigInt(storageBytes);
    this.#early.set(spanId, early);
  }

  /** Every span's cost; call once, after the last event. */
  finish(options: SpanCostOptions = {}): SpanCostColumns {
    const structure = spanTableIssues(this.#spans, options, []);
    return new SpanCostColumns(this.#spans, structure, this.#ops, options);
  }
}
