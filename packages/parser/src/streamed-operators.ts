// The operator table of a streamed trace, fed event by event (see `OperatorAccumulator`).
import {
  type ColumnBatch,
  EVENT_KINDS,
  type FieldColumn,
  type KindColumns,
  type TraceEvent,
  type U64,
} from "@cg/schema/core";
import type { ReadOptions } from "./line-processor.js";
import { OperatorAccumulator, type OperatorGroupField, type OperatorTable } from "./operator-stats.js";
import { readColumnBatches } from "./read-column-batches.js";
import { REREAD_BATCH_SIZE } from "./row-source.js";
import type { SpanPaths } from "./span-paths.js";
import type { TraceSource } from "./trace-source.js";

const OP = EVENT_KINDS.indexOf("op");

/**
 * The operator table from the stream. Grouped by path, an op's path must be final when it is added;
 * in writer output every span starts before its ops and its parents before it, so one pass does.
 * Otherwise (an op before its span, a parent that starts late) the ops are read again once every
 * span is in the table.
 */
export class StreamedOperators {
  readonly #groupBy: readonly OperatorGroupField[];
  readonly #spans: SpanPaths | undefined;
  #accumulator: OperatorAccumulator;
  #needsSecondPass = false;

  readonly #percentiles: boolean;

  constructor(groupBy: readonly OperatorGroupField[], spans: SpanPaths | undefined, percentiles = true) {
    this.#groupBy = groupBy;
    this.#spans = spans;
    this.#percentiles = percentiles;
    this.#accumulator = this.#newAccumulator();
  }

  add(event: TraceEvent): void {
    if (event.kind !== "op" || this.#needsSecondPass) return;
    if (this.#spans !== undefined && this.#spans.pathOf(event.span_id) === undefined) {
      this.#needsSecondPass = true;
      return;
    }
    this.#accumulator.addOp(event);
  }

  /**
   * `add` of every op of a column batch, read from the op columns (no event object). Call after
   * the summary folded the batch, so the batch's spans are in the table.
   */
  addBatch(batch: ColumnBatch): void {
    if (this.#needsSecondPass) return;
    const kinds = batch.kinds;
    const rows = batch.rows;
    const spanIds = (batch.columns[OP] as KindColumns).byKey.get("span_id") as FieldColumn;
    for (let at = 0; at < batch.size; at++) {
      if (kinds[at] !== OP) continue;
      const row = rows[at] as number;
      if (this.#spans !== undefined) {
        const spanId = batch.strings[spanIds.values[row] as number] as string;
        if (this.#spans.pathOf(spanId) === undefined) {
          this.#needsSecondPass = true;
          return;
        }
      }
      this.#accumulator.addOpRow(batch, row);
    }
  }

  async result(
    open: () => TraceSource,
    readOptions: ReadOptions,
    measuredTotal: U64,
    limit?: number,
  ): Promise<OperatorTable> {
    const accumulator = await this.accumulated(open, readOptions, measuredTotal);
    return accumulator.result(limit === undefined ? {} : { limit });
  }

  /** The finished accumulator (read again first when the one pass could not group every op). */
  async accumulated(
    open: () => TraceSource,
    readOptions: ReadOptions,
    measuredTotal: U64,
  ): Promise<OperatorAccumulator> {
    if (this.#needsSecondPass) {
      this.#accumulator = this.#newAccumulator();
      // Only op lines are decoded: the first read checked the others.
      const options = { ...readOptions, kinds: ["op" as const], batchSize: REREAD_BATCH_SIZE };
      for await (const batch of readColumnBatches(open(), options)) {
        for (let at = 0; at < batch.size; at++) {
          if (batch.kinds[at] === OP) this.#accumulator.addOpRow(batch, batch.rows[at] as number);
        }
      }
    }
    this.#accumulator.setMeasuredTotal(measuredTotal);
    return this.#accumulator;
  }

  #newAccumulator(): OperatorAccumulator {
    const spans = this.#spans;
    return new OperatorAccumulator(this.#groupBy, {
      percentiles: this.#percentiles,
      ...(spans === undefined ? {} : { pathOf: (spanId: string) => spans.pathOf(spanId) as string }),
    });
  }
}
