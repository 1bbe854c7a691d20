// `spanCosts` for a streamed trace: spans go into the compact SpanTable (tens of bytes per span,
// not an object each), ops only add to per-span typed sums, and the costs of every span are
// computed once at the end (span-cost-columns.ts), with the same rules and results as `spanCosts`
// on the whole document. One `SpanOpFold` sums the ops for the public collector and for the
// summarizer (over the summarizer's own span table).
import { resolveStorageBytes } from "@cg/memory";
import type { TraceEvent, U64 } from "@cg/schema/core";
import { IdTable } from "./id-table.js";
import type { SpanCostOptions } from "./span-cost.js";
import { SpanCostColumns } from "./span-cost-columns.js";
import { SpanOpTotals } from "./span-op-totals.js";
import { SpanTable } from "./span-table.js";
import { type SpanTableStructure, spanTableIssues } from "./span-table-health.js";

/**
 * The ops of a span table's spans, summed per span row as they come; the table is filled by its
 * owner, who reports each start with `spanStarted`. Internal: the summarizer shares its own table.
 */
export class SpanOpFold {
  readonly #spans: SpanTable;
  readonly #ops = new SpanOpTotals();
  /** The span id `pushOp` last found started, and its row: ops come in runs of one span. */
  #startedSpanId: string | undefined;
  #startedRow = -1;

  constructor(spans: SpanTable) {
    this.#spans = spans;
  }

  /** The span `spanId` started as `row`: its earlier ops join it. */
  spanStarted(row: number, spanId: string): void {
    this.#ops.claimEarly(spanId, row);
  }

  /** Adds an op (storage bytes resolved already); returns its ordinal within its span, from 0. */
  pushOp(spanId: string, durationNs: U64, storageBytes: U64): number {
    let row = this.#startedRow;
    if (spanId !== this.#startedSpanId) {
      row = this.#spans.ids.get(spanId);
      // The table's ids may hold a span its owner has not started yet (a reader interns ids ahead
      // of the fold): only rows below the table's size are started, and once started always so.
      if (row < 0 || row >= this.#spans.size) return this.#ops.addEarly(spanId, durationNs, storageBytes);
      this.#startedSpanId = spanId;
      this.#startedRow = row;
    }
    return this.#ops.add(row, durationNs, storageBytes);
  }

  /** Every span's cost; `structure`: the table's, when its owner computed it already. */
  finish(options: SpanCostOptions, structure?: SpanTableStructure): SpanCostColumns {
    return new SpanCostColumns(
      this.#spans,
      structure ?? spanTableIssues(this.#spans, options, []),
      this.#ops,
      options,
    );
  }
}

/**
 * Feed it the accepted events of a trace in file order (for example from `summarizeStream`'s
 * `onEvent`); `finish` gives every span's cost, equal to `spanCosts` of the parsed document.
 * Holds the span table and three typed sums per span; ops are not kept. (`summarizeColumns` with
 * `spanCosts: true` gives the same costs from the summary's own table, without a second one.)
 */
export class SpanCostCollector {
  readonly #ids = new IdTable();
  readonly #spans = new SpanTable(this.#ids);
  readonly #ops = new SpanOpFold(this.#spans);

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
        this.#ops.spanStarted(row, event.id);
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
    this.#ops.pushOp(spanId, durationNs, storageBytes);
  }

  /** Every span's cost; call once, after the last event. */
  finish(options: SpanCostOptions = {}): SpanCostColumns {
    return this.#ops.finish(options);
  }
}
