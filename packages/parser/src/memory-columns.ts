// A batch's memory events read from their columns as the values the reorder window and the
// memory timeline take (`AnalysisValuesSink.pushValues`), so no event object is made for them.
import {
  type ColumnBatch,
  EVENT_KINDS,
  type FieldColumn,
  type KindColumns,
  MEMORY_ACTIONS,
  type U64,
} from "@cg/schema/core";
import type { AnalysisValuesSink } from "./reorder-window.js";

/** The kind code of `memory` events in a batch. */
export const MEMORY_CODE = EVENT_KINDS.indexOf("memory");
const ALLOC = MEMORY_ACTIONS.indexOf("alloc");

/** The memory columns of one batch, by field (looked up per batch: a batch may grow its columns). */
export class MemoryColumns {
  readonly timestamps: FieldColumn;
  readonly tensorIds: FieldColumn;
  readonly spanIds: FieldColumn;
  readonly opNames: FieldColumn;
  readonly devices: FieldColumn;
  readonly bytes: FieldColumn;
  readonly actions: FieldColumn;
  readonly categories: FieldColumn;
  readonly #batch: ColumnBatch;

  constructor(batch: ColumnBatch) {
    this.#batch = batch;
    const memory = batch.columns[MEMORY_CODE] as KindColumns;
    const field = (key: string) => memory.byKey.get(key) as FieldColumn;
    this.timestamps = field("timestamp_ns");
    this.tensorIds = field("tensor_id");
    this.spanIds = field("span_id");
    this.opNames = field("op_name");
    this.devices = field("device");
    this.bytes = field("bytes");
    this.actions = field("action");
    this.categories = field("category");
  }

  /** Whether row `row` is an `alloc`. */
  isAlloc(row: number): boolean {
    return this.actions.values[row] === ALLOC;
  }

  /** Gives the memory event of row `row` to `sink` (`category` as its index in MEMORY_CATEGORIES). */
  pushTo(sink: AnalysisValuesSink, row: number): void {
    const batch = this.#batch;
    const strings = batch.strings;
    sink.pushValues(
      batch.u64(this.timestamps, row) as U64,
      strings[this.tensorIds.values[row] as number] as string,
      strings[this.spanIds.values[row] as number] as string,
      batch.string(this.opNames, row),
      strings[this.devices.values[row] as number] as string,
      batch.u64(this.bytes, row) as U64,
      this.isAlloc(row),
      this.categories.values[row] as number,
    );
  }
}
