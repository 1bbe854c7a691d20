// The figures of one comparison side folded from its events, for a stream and a document alike:
// per-path span totals, gradient facts and the attribution inputs. The spans are those of the
// summarizer's own table (handed over with `spans.use` before the first event).
import type { ColumnBatch, FieldColumn, KindColumns, TraceEvent, U64 } from "@cg/schema/core";
import { type AttributionSide, AttributionSideBuilder, SpanKeyCache } from "./compare-attribution-side.js";
import {
  addGradient,
  type ComparisonSide,
  type GradientSide,
  spanPathKey,
  unknownSpanKey,
} from "./comparison-side.js";
import { OP_CODE, OP_FIELD, ShapeText } from "./op-columns.js";
import { formatShape } from "./operator-stats.js";
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
  // Ops whose span path is not final yet (an op before its span, a parent that starts late).
  readonly #pendingOps: PendingOp[] = [];
  readonly #shapeText = new ShapeText();

  add(event: TraceEvent): void {
    if (event.kind === "op") {
      const { span_id, op_name, dtype, device, duration_ns } = event;
      this.#addOp(span_id, op_name, formatShape(event.shape), dtype, device, duration_ns);
    } else if (event.kind === "gradient") {
      addGradient(this.#gradients, event);
    }
  }

  /** `add` of every op of a column batch, read from the op columns (no event object). */
  addOps(batch: ColumnBatch): void {
    const kinds = batch.kinds;
    const rows = batch.rows;
    const strings = batch.strings;
    const fields = (batch.columns[OP_CODE] as KindColumns).fields;
    const spanIds = (fields[OP_FIELD.span_id] as FieldColumn).values;
    const opNames = (fields[OP_FIELD.op_name] as FieldColumn).values;
    const dtypes = (fields[OP_FIELD.dtype] as FieldColumn).values;
    const devices = (fields[OP_FIELD.device] as FieldColumn).values;
    const shapes = fields[OP_FIELD.shape] as FieldColumn;
    const durations = fields[OP_FIELD.duration_ns] as FieldColumn;
    for (let at = 0; at < batch.size; at++) {
      if (kinds[at] !== OP_CODE) continue;
      const row = rows[at] as number;
      this.#addOp(
        strings[spanIds[row] as number] as string,
        strings[opNames[row] as number] as string,
        this.#shapeText.of(shapes, row),
        strings[dtypes[row] as number] as string,
        strings[devices[row] as number] as string,
        batch.u64(durations, row) as U64,
      );
    }
  }

  #addOp(spanId: string, opName: string, shape: string, dtype: string, device: string, ns: U64): void {
    const table = this.spans.table;
    const row = table.ids.get(spanId);
    if (row >= 0 && row < table.size && this.spans.pathOf(spanId) !== undefined) {
      this.#attribution.addOpValues(this.#keyOf(table, row), opName, shape, dtype, device, ns);
    } else {
      this.#pendingOps.push({ spanId, opName, shape, dtype, device, ns });
    }
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
    for (const { spanId, opName, shape, dtype, device, ns } of this.#pendingOps) {
      const row = table.ids.get(spanId);
      if (row >= 0 && row < table.size) {
        this.#attribution.addOpValues(this.#keyOf(table, row), opName, shape, dtype, device, ns);
      }
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

/** The fields of an op that attribution keeps while its span path is not final. */
interface PendingOp {
  spanId: string;
  opName: string;
  shape: string;
  dtype: string;
  device: string;
  ns: U64;
}
