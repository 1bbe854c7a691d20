// The streamed summary as a fold over column batches: each event goes to the one summarizer
// (trace-summarizer.ts) in file order; kinds whose figures need only their span reference (ops and
// tensors without rankings) and memory events are folded from the columns, without an event object.
import { resolveStorageBytes } from "@cg/memory";
import {
  type ColumnBatch,
  EVENT_KINDS,
  type EventKind,
  type FieldColumn,
  type KindColumns,
  type OpEvent,
  type TraceEvent,
  type U64,
} from "@cg/schema/core";
import { MEMORY_CODE, MemoryColumns } from "./memory-columns.js";
import type { TraceSummarizer } from "./trace-summarizer.js";

/** What the fold needs of a summary's options. */
export interface SummaryFoldOptions {
  /** Sees every accepted event of `eventKinds`, in file order, after the summary took it. */
  onEvent?: ((event: TraceEvent) => void) | undefined;
  /** The kinds `onEvent` is given (default: all). */
  eventKinds?: readonly EventKind[] | undefined;
  /** Set when the summary ranks ops: ops are then read from their columns. */
  rankLimit?: number | undefined;
  /** Set when the summary sums ops per span for span costs: ops are then read from their columns. */
  spanCosts?: boolean | undefined;
}

const OP = EVENT_KINDS.indexOf("op");
const TENSOR = EVENT_KINDS.indexOf("tensor");
/** The op columns the ranking reads without an event object. */
const OP_DURATION = "duration_ns";
const OP_STORAGE = "storage_bytes";

/**
 * The op being folded, built from the batch only when asked for. One holder serves every op (the
 * summarizer calls it before the next op is folded), so ranking an op allocates nothing.
 */
class LazyOp {
  #batch: ColumnBatch | undefined;
  #at = 0;
  #event: OpEvent | undefined;
  readonly get = (): OpEvent => {
    this.#event ??= (this.#batch as ColumnBatch).event(this.#at) as OpEvent;
    return this.#event;
  };

  point(batch: ColumnBatch, at: number): this {
    this.#batch = batch;
    this.#at = at;
    this.#event = undefined;
    return this;
  }
}

/** Folds the events of column batches into a TraceSummarizer, in file order. */
export class SummaryFold {
  readonly #summarizer: TraceSummarizer;
  readonly #onEvent: ((event: TraceEvent) => void) | undefined;
  /** Per kind code: whether `onEvent` is given its events. */
  readonly #seen: boolean[];
  /** Ops are folded from their span column alone (no rankings, no per-event consumer). */
  readonly #opsBySpan: boolean;
  /** Ops are ranked from their columns; an event object is built only for one that ranks. */
  readonly #opsByValues: boolean;
  readonly #op = new LazyOp();
  readonly #tensorsBySpan: boolean;
  readonly #memoryByValues: boolean;

  constructor(summarizer: TraceSummarizer, options: SummaryFoldOptions) {
    this.#summarizer = summarizer;
    this.#onEvent = options.onEvent;
    const kinds = options.eventKinds;
    this.#seen = EVENT_KINDS.map(
      (kind) => options.onEvent !== undefined && (kinds === undefined || kinds.includes(kind)),
    );
    const opFigures = options.rankLimit !== undefined || options.spanCosts === true;
    this.#opsBySpan = !this.#seen[OP] && !opFigures;
    this.#opsByValues = !this.#seen[OP] && opFigures;
    this.#tensorsBySpan = !this.#seen[TENSOR];
    this.#memoryByValues = !this.#seen[MEMORY_CODE];
  }

  /** Folds the batch's events `from` up to `to` (default: all of them). */
  add(batch: ColumnBatch, from = 0, to = batch.size): void {
    const summarizer = this.#summarizer;
    const onEvent = this.#onEvent;
    const kinds = batch.kinds;
    const rows = batch.rows;
    const strings = batch.strings;
    const opSpans = (batch.columns[OP] as KindColumns).fields[0]?.values as Int32Array;
    const tensorSpans = (batch.columns[TENSOR] as KindColumns).fields[0]?.values as Int32Array;
    const memory = new MemoryColumns(batch);
    const ops = batch.columns[OP] as KindColumns;
    // Two lookups, not a destructured map(): V8 threw this loop's optimized code away at the second
    // batch over the destructuring's array.
    const opDurations = ops.byKey.get(OP_DURATION) as FieldColumn;
    const opStorage = ops.byKey.get(OP_STORAGE) as FieldColumn;
    for (let at = from; at < to; at++) {
      const code = kinds[at] as number;
      if (code === MEMORY_CODE && this.#memoryByValues) {
        const row = rows[at] as number;
        summarizer.addMemoryValues(
          batch.u64(memory.timestamps, row) as U64,
          strings[memory.tensorIds.values[row] as number] as string,
          strings[memory.spanIds.values[row] as number] as string,
          batch.string(memory.opNames, row),
          strings[memory.devices.values[row] as number] as string,
          batch.u64(memory.bytes, row) as U64,
          memory.isAlloc(row),
          memory.categories.values[row] as number,
          batch.lines[at] as number,
        );
        continue;
      }
      if (code === OP && this.#opsByValues) {
        const row = rows[at] as number;
        const op = this.#op.point(batch, at).get;
        // Absent storage bytes are resolved from the shape and dtype, as the event path does.
        const storage = batch.u64(opStorage as FieldColumn, row);
        summarizer.addOpValues(
          strings[opSpans[row] as number] as string,
          batch.u64(opDurations as FieldColumn, row) as U64,
          storage ?? resolveStorageBytes(undefined, op().shape, op().dtype),
          op,
          batch.lines[at] as number,
        );
        continue;
      }
      if ((code === OP && this.#opsBySpan) || (code === TENSOR && this.#tensorsBySpan)) {
        // A run of references to one span is folded at once.
        const spans = code === OP ? opSpans : tensorSpans;
        const id = spans[rows[at] as number] as number;
        let count = 1;
        while (at + 1 < to && kinds[at + 1] === code && spans[rows[at + 1] as number] === id) {
          count++;
          at++;
        }
        summarizer.addSpanReferences(code === OP ? "op" : "tensor", strings[id] as string, count);
        continue;
      }
      const event = batch.event(at);
      summarizer.add(event, batch.lines[at], batch.indexes[at]);
      if (this.#seen[code]) (onEvent as (event: TraceEvent) => void)(event);
    }
  }
}
