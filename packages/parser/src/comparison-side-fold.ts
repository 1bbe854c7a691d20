// The figures of one comparison side folded from its events, for a stream and a document alike:
// per-path span totals, gradient facts and the attribution inputs. The spans are those of the
// summarizer's own table (handed over with `spans.use` before the first event).
import type { ColumnBatch, FieldColumn, KindColumns, OpEvent, TraceEvent } from "@cg/schema/core";
import { type AttributionSide, AttributionSideBuilder, SpanKeyCache } from "./compare-attribution-side.js";
import {
  addGradient,
  type ComparisonSide,
  type GradientSide,
  spanPathKey,
  unknownSpanKey,
} from "./comparison-side.js";
import { OP_CODE, OP_FIELD } from "./op-columns.js";
import { SpanPaths } from "./span-paths.js";
import type { SpanTable } from "./span-table.js";
import { spanPath } from "./span-table-costs.js";
import type { StreamSummary } from "./trace-summarizer.js";

/** A comparison side but its operators, with the attribution inputs always there. */
export type ComparisonSideFigures = Omit<ComparisonSide, "operators" | "attribution"> & {
  attribution: AttributionSide;
};

export class ComparisonSideFold {
  readonly spans = new SpanPaths();
  readonly #gradients = new Map<string, GradientSide>();
  readonly #attribution = new AttributionSideBuilder();
  readonly #keys = new SpanKeyCache();
  // Ops whose span path is not final yet (an op before its span, a parent that starts late): rare,
  // kept as events until the end.
  readonly #pendingOps: OpEvent[] = [];

  add(event: TraceEvent): void {
    if (event.kind === "op") {
      const row = this.#finalRow(event.span_id);
      if (row >= 0) this.#attribution.addOp(this.#keyOf(this.spans.table, row), event);
      else this.#pendingOps.push(event);
    } else if (event.kind === "gradient") {
      addGradient(this.#gradients, event);
    }
  }

  /** `add` of every op of a column batch, read from the op columns (an event object only for a pending op). */
  addOps(batch: ColumnBatch): void {
    const kinds = batch.kinds;
    const rows = batch.rows;
    const strings = batch.strings;
    const spanIds = ((batch.columns[OP_CODE] as KindColumns).fields[OP_FIELD.span_id] as FieldColumn).values;
    for (let at = 0; at < batch.size; at++) {
      if (kinds[at] !== OP_CODE) continue;
      const row = rows[at] as number;
      const spanRow = this.#finalRow(strings[spanIds[row] as number] as string);
      if (spanRow >= 0) this.#attribution.addOpRow(this.#keyOf(this.spans.table, spanRow), batch, row);
      else this.#pendingOps.push(batch.event(at) as OpEvent);
    }
  }

  /** The started span's row when its path is final; -1 while it is not (the op waits then). */
  #finalRow(spanId: string): number {
    const table = this.spans.table;
    const row = table.ids.get(spanId);
    return row >= 0 && row < table.size && this.spans.pathOf(spanId) !== undefined ? row : -1;
  }

  /**
   * The side from the summary of the same events, made with `spanCosts` (the span costs are the
   * summary's; its operators are the caller's).
   */
  finish(stream: StreamSummary): ComparisonSideFigures {
    this.spans.complete();
    const table = this.spans.table;
    const costs = stream.spanCosts;
    if (costs === undefined) throw new Error("ComparisonSideFold.finish: the summary needs spanCosts");
    const spanTotals = new Map<string, bigint>();
    for (let row = 0; row < table.size; row++) {
      if (!costs.inMeasuredSubtree(row)) continue;
      const key = this.#keyOf(table, row);
      spanTotals.set(key, (spanTotals.get(key) ?? 0n) + costs.exactTotalNs(row));
      this.#attribution.addSpan(key, costs.exactSelfNs(row));
    }
    for (const op of this.#pendingOps) {
      const row = table.ids.get(op.span_id);
      if (row >= 0 && row < table.size) this.#attribution.addOp(this.#keyOf(table, row), op);
    }
    this.#pendingOps.length = 0;
    const keyOfSpan = (spanId: string): string => {
      const row = table.ids.get(spanId);
      return row >= 0 && row < table.size ? this.#keyOf(table, row) : unknownSpanKey(spanId);
    };
    const allKeys = new Set<string>();
    for (let row = 0; row < table.size; row++) allKeys.add(this.#keyOf(table, row));
    return {
      run: stream.run,
      trusted: stream.health.trusted,
      total_ns: stream.summary.total_ns,
      peak_bytes: stream.memory.peak_bytes,
      span_totals: spanTotals,
      gradients: this.#gradients,
      attribution: this.#attribution.finish(stream.summary.total_ns, stream.memory, keyOfSpan, allKeys),
    };
  }

  /** A table row's span path key (made once per row). */
  #keyOf(table: SpanTable, row: number): string {
    return this.#keys.of(row, (at) =>
      spanPathKey({ path: spanPath(table, at), kind: table.kind(at), step: table.step(at) }),
    );
  }
}
