// The per-operator table PyTorch users reach for first (`key_averages`): per op name, optionally
// split by shape, dtype, device or span path, how often it ran and how long it took. Built from a
// document or from a stream of events with the same accumulator, so both give the same result.
import { exactU64, resolveStorageBytes, U64Column } from "@cg/memory";
import type {
  ColumnBatch,
  FieldColumn,
  KindColumns,
  OpEvent,
  SpanStartEvent,
  TraceEvent,
  U64,
} from "@cg/schema/core";
import { DurationLog } from "./duration-log.js";
import { foldDocument } from "./fold-document.js";
import { OP_CODE, OP_FIELD, ShapeText, shapeOf } from "./op-columns.js";
import type { TraceDocument } from "./trace-document.js";
import { TupleIndex } from "./tuple-index.js";

export const OPERATOR_GROUP_FIELDS = ["shape", "dtype", "device", "path"] as const;
export type OperatorGroupField = (typeof OPERATOR_GROUP_FIELDS)[number];

/** One row: one op name (and one value of each group-by field). Times in nanoseconds. */
export interface OperatorStats {
  op_name: string;
  /** Present when grouped by shape: the output shape, e.g. "[32, 64]". */
  shape?: string;
  dtype?: string;
  device?: string;
  /** Present when grouped by path: the span path the op ran in, e.g. "train/step/forward". */
  path?: string;
  calls: number;
  total_ns: U64;
  /** total_ns ÷ calls, rounded down to whole nanoseconds. */
  mean_ns: U64;
  min_ns: U64;
  max_ns: U64;
  /** Exact nearest-rank percentiles of the calls' durations. */
  p50_ns: U64;
  p95_ns: U64;
  /** total_ns ÷ the trace's measured total (null when that total is 0). */
  share_of_measured: number | null;
  /** Sum of the calls' output storage bytes (spec §15.4) and of their input storage bytes. */
  output_bytes: U64;
  input_bytes: U64;
  /** Distinct shapes, dtypes and devices of the calls (at most 8 each; `*_more` counts the rest). */
  shapes: string[];
  dtypes: string[];
  devices: string[];
  shapes_more: number;
}

export interface OperatorTable {
  schema: "cg-trace/operators/1";
  group_by: OperatorGroupField[];
  /** Sum of the measured spans' durations: the denominator of `share_of_measured`. */
  measured_total_ns: U64;
  /** Sum of every op's duration. */
  op_total_ns: U64;
  op_count: number;
  /** Rows (operators) before `limit`. */
  operator_count: number;
  /**
   * Percentiles from every call's duration (12 bytes per op are kept while aggregating); "not kept"
   * when the table was built with `percentiles: false` (p50_ns and p95_ns are then 0).
   */
  percentiles: "exact (nearest rank)" | "not kept";
  /** By total time, descending; ties by op name. */
  operators: OperatorStats[];
}

export interface OperatorAccumulatorOptions {
  /**
   * The span path of a span id, when grouping by path (default: from the spans given to `addSpan`).
   * A streamed table passes paths from its compact span table here.
   */
  pathOf?: (spanId: string) => string;
  /** Keep every call's duration for exact p50 and p95 (default true; 12 bytes per op). */
  percentiles?: boolean;
}

export interface OperatorTableOptions {
  groupBy?: readonly OperatorGroupField[];
  /** Keep every call's duration for exact p50 and p95 (default true; 12 bytes per op). */
  percentiles?: boolean;
  /** Rows kept, the costliest first (default: all). */
  limit?: number;
}

/**
 * An operator table's rows read in place (table order), for a comparison: no row objects are
 * built until a row is asked for.
 */
export interface OperatorRows {
  readonly group_by: readonly OperatorGroupField[];
  readonly size: number;
  fields(index: number): Pick<OperatorStats, "op_name" | OperatorGroupField>;
  calls(index: number): number;
  total(index: number): U64;
}

const DISTINCT_KEPT = 8;

// Exact u64 arithmetic throughout (durations and bytes may exceed 2^53); results are numbers
// again whenever they fit, as everywhere else in the parser's output.
const toBig = (value: U64): bigint => (typeof value === "bigint" ? value : BigInt(value));

/** `[32, 64]` for a shape; `[]` for a scalar. */
export function formatShape(shape: readonly U64[]): string {
  return `[${shape.map((dimension) => String(dimension)).join(", ")}]`;
}

/** The op name and group field values of a row. */
type GroupFields = Pick<OperatorStats, "op_name" | OperatorGroupField>;

/** Dense ids for the values of one field (op names, shapes, …), shared by every row. */
class ValueIds {
  readonly #ids = new Map<string, number>();
  readonly values: string[] = [];

  intern(value: string): number {
    let id = this.#ids.get(value);
    if (id === undefined) {
      id = this.values.length;
      this.#ids.set(value, id);
      this.values.push(value);
    }
    return id;
  }
}

/**
 * `ValueIds.intern` of a column batch's strings, remembered by dictionary id while the batch keeps
 * its dictionary: the ops of a batch repeat a few op names, dtypes and devices, so most lookups
 * are one array read instead of hashing the string.
 */
class DictionaryValueIds {
  readonly #values: ValueIds;
  #generation = -1;
  /** Per dictionary id: the value id + 1, or 0 when not looked up yet in this generation. */
  #ids = new Int32Array(1024);

  constructor(values: ValueIds) {
    this.#values = values;
  }

  of(batch: ColumnBatch, stringId: number): number {
    if (batch.generation !== this.#generation) {
      this.#ids.fill(0);
      this.#generation = batch.generation;
    }
    if (stringId >= this.#ids.length) {
      let length = this.#ids.length * 2;
      while (length <= stringId) length *= 2;
      const grown = new Int32Array(length);
      grown.set(this.#ids);
      this.#ids = grown;
    }
    const known = (this.#ids[stringId] as number) - 1;
    if (known >= 0) return known;
    const id = this.#values.intern(batch.strings[stringId] as string);
    this.#ids[stringId] = id + 1;
    return id;
  }
}

/**
 * Up to DISTINCT_KEPT distinct value ids per row, in first-seen order (the shapes, dtypes or devices
 * of a field the rows are not split by), as one typed column.
 */
class DistinctColumn {
  #ids = new Int32Array(64 * DISTINCT_KEPT);
  #counts = new Uint8Array(64);

  reserve(rows: number): void {
    if (rows <= this.#counts.length) return;
    const ids = new Int32Array(this.#ids.length * 2);
    ids.set(this.#ids);
    this.#ids = ids;
    const counts = new Uint8Array(this.#counts.length * 2);
    counts.set(this.#counts);
    this.#counts = counts;
  }

  /** Adds `id` to the row's values; false when it is new and the row already holds DISTINCT_KEPT. */
  keep(row: number, id: number): boolean {
    const count = this.#counts[row] as number;
    const from = row * DISTINCT_KEPT;
    for (let at = from; at < from + count; at++) if (this.#ids[at] === id) return true;
    if (count >= DISTINCT_KEPT) return false;
    this.#ids[from + count] = id;
    this.#counts[row] = count + 1;
    return true;
  }

  values(row: number, names: readonly string[]): string[] {
    const values: string[] = [];
    const from = row * DISTINCT_KEPT;
    for (let at = from; at < from + (this.#counts[row] as number); at++)
      values.push(names[this.#ids[at] as number] as string);
    return values;
  }
}

/**
 * Aggregates ops one at a time (from a document or a stream). Rows (one per op name and group
 * field values) are typed columns found through interned value ids: about 150 bytes per row, so a
 * table grouped by span path (a row per span and op name) stays small; 12 bytes per op for exact
 * percentiles; and, when grouping by path, each span's name and parent.
 */
export class OperatorAccumulator {
  readonly #groupBy: readonly OperatorGroupField[];
  readonly #spans = new Map<string, { name: string; parent: string | undefined }>();
  readonly #paths = new Map<string, string>();
  readonly #pathOf: (spanId: string) => string;
  #measuredTotal = 0n;
  #opTotal: U64 = 0;
  #opCount = 0;
  // Value ids per field: op names, then each group field in `#groupBy` order.
  readonly #opNames = new ValueIds();
  readonly #shapes = new ValueIds();
  readonly #dtypes = new ValueIds();
  readonly #devices = new ValueIds();
  readonly #pathIds = new ValueIds();
  readonly #rows: TupleIndex;
  readonly #tuple: Int32Array;
  #capacity = 64;
  #calls = new Float64Array(64);
  #shapesMore = new Float64Array(64);
  readonly #total = new U64Column();
  readonly #min = new U64Column();
  readonly #max = new U64Column();
  readonly #outputBytes = new U64Column();
  readonly #inputBytes = new U64Column();
  // The distinct values of the fields rows are not split by (undefined for a split field).
  readonly #distinctShapes: DistinctColumn | undefined;
  readonly #distinctDtypes: DistinctColumn | undefined;
  readonly #distinctDevices: DistinctColumn | undefined;
  readonly #durations: DurationLog | undefined;
  readonly #shapeText = new ShapeText();
  readonly #batchOpNames = new DictionaryValueIds(this.#opNames);
  readonly #batchDtypes = new DictionaryValueIds(this.#dtypes);
  readonly #batchDevices = new DictionaryValueIds(this.#devices);

  constructor(groupBy: readonly OperatorGroupField[] = [], options: OperatorAccumulatorOptions = {}) {
    this.#groupBy = OPERATOR_GROUP_FIELDS.filter((field) => groupBy.includes(field));
    this.#pathOf = options.pathOf ?? ((spanId) => this.#pathOfSpans(spanId));
    if (options.percentiles ?? true) this.#durations = new DurationLog();
    this.#rows = new TupleIndex(1 + this.#groupBy.length);
    this.#tuple = new Int32Array(1 + this.#groupBy.length);
    if (!this.#groupBy.includes("shape")) this.#distinctShapes = new DistinctColumn();
    if (!this.#groupBy.includes("dtype")) this.#distinctDtypes = new DistinctColumn();
    if (!this.#groupBy.includes("device")) this.#distinctDevices = new DistinctColumn();
  }

  /** Sets the denominator of `share_of_measured` at once (a streamed summary has it exact). */
  setMeasuredTotal(totalNs: U64): void {
    this.#measuredTotal = toBig(totalNs);
  }

  /** A span's name and parent (needed only to group by path). */
  addSpan(span: Pick<SpanStartEvent, "id" | "name" | "parent_id">): void {
    if (this.#groupBy.includes("path")) this.#spans.set(span.id, { name: span.name, parent: span.parent_id });
  }

  /** Adds a measured span's duration to the denominator of `share_of_measured`. */
  addMeasuredDuration(durationNs: U64): void {
    this.#measuredTotal += toBig(durationNs);
  }

  addOp(
    op: Pick<
      OpEvent,
      | "op_name"
      | "span_id"
      | "shape"
      | "dtype"
      | "device"
      | "duration_ns"
      | "storage_bytes"
      | "input_storage_bytes"
    >,
  ): void {
    this.#add(
      this.#opNames.intern(op.op_name),
      op.span_id,
      formatShape(op.shape),
      this.#dtypes.intern(op.dtype),
      this.#devices.intern(op.device),
      op.duration_ns,
      resolveStorageBytes(op.storage_bytes, op.shape, op.dtype),
      op.input_storage_bytes ?? 0,
    );
  }

  /**
   * `addOp` of the op in row `row` of `batch`'s op columns, read from the columns without an event
   * object. Call in file order, as `addOp` is called.
   */
  addOpRow(batch: ColumnBatch, row: number): void {
    const fields = (batch.columns[OP_CODE] as KindColumns).fields;
    const dtype = (fields[OP_FIELD.dtype] as FieldColumn).values[row] as number;
    const shape = fields[OP_FIELD.shape] as FieldColumn;
    const storage = batch.u64(fields[OP_FIELD.storage_bytes] as FieldColumn, row);
    this.#add(
      this.#batchOpNames.of(batch, (fields[OP_FIELD.op_name] as FieldColumn).values[row] as number),
      batch.strings[(fields[OP_FIELD.span_id] as FieldColumn).values[row] as number] as string,
      this.#shapeText.of(shape, row),
      this.#batchDtypes.of(batch, dtype),
      this.#batchDevices.of(batch, (fields[OP_FIELD.device] as FieldColumn).values[row] as number),
      batch.u64(fields[OP_FIELD.duration_ns] as FieldColumn, row) as U64,
      storage ?? resolveStorageBytes(undefined, shapeOf(shape, row), batch.strings[dtype] as string),
      batch.u64(fields[OP_FIELD.input_storage_bytes] as FieldColumn, row) ?? 0,
    );
  }

  /** One op: `opName`, `dtype` and `device` as their ids in `#opNames`, `#dtypes` and `#devices`. */
  #add(
    opName: number,
    spanId: string,
    shape: string,
    dtype: number,
    device: number,
    duration: U64,
    outputBytes: U64,
    inputBytes: U64,
  ): void {
    const groupBy = this.#groupBy;
    const tuple = this.#tuple;
    tuple[0] = opName;
    for (let depth = 0; depth < groupBy.length; depth++) {
      const field = groupBy[depth] as OperatorGroupField;
      tuple[depth + 1] =
        field === "shape"
          ? this.#shapes.intern(shape)
          : field === "dtype"
            ? dtype
            : field === "device"
              ? device
              : this.#pathIds.intern(this.#pathOf(spanId));
    }
    const row = this.#rows.intern(tuple);
    if (row >= this.#capacity) this.#reserve(row + 1);
    const calls = this.#calls[row] as number;
    if (calls === 0 || this.#min.compare(row, duration) > 0) this.#min.set(row, duration);
    if (this.#max.compare(row, duration) < 0) this.#max.set(row, duration);
    this.#calls[row] = calls + 1;
    this.#total.add(row, duration);
    this.#outputBytes.add(row, outputBytes);
    this.#inputBytes.add(row, inputBytes);
    if (this.#distinctShapes !== undefined && !this.#distinctShapes.keep(row, this.#shapes.intern(shape))) {
      this.#shapesMore[row] = (this.#shapesMore[row] as number) + 1;
    }
    this.#distinctDtypes?.keep(row, dtype);
    this.#distinctDevices?.keep(row, device);
    this.#durations?.add(row, duration);
    this.#opTotal =
      typeof this.#opTotal === "number" &&
      typeof duration === "number" &&
      this.#opTotal + duration <= Number.MAX_SAFE_INTEGER
        ? this.#opTotal + duration
        : exactU64(BigInt(this.#opTotal) + BigInt(duration));
    this.#opCount += 1;
  }

  /** Adds any trace event: span starts (for paths), measured span ends and ops. */
  addEvent(event: TraceEvent, measuredSpans: Set<string>): void {
    if (event.kind === "span_start") {
      this.addSpan(event);
      if (event.measured) measuredSpans.add(event.id);
    } else if (event.kind === "span_end") {
      if (measuredSpans.delete(event.id)) this.addMeasuredDuration(event.duration_ns);
    } else if (event.kind === "op") {
      this.addOp(event);
    }
  }

  #reserve(rows: number): void {
    let capacity = this.#capacity * 2;
    while (capacity < rows) capacity *= 2;
    this.#calls = withCapacity(this.#calls, capacity);
    this.#shapesMore = withCapacity(this.#shapesMore, capacity);
    for (const column of [this.#total, this.#min, this.#max, this.#outputBytes, this.#inputBytes]) {
      column.reserve(capacity);
    }
    this.#distinctShapes?.reserve(capacity);
    this.#distinctDtypes?.reserve(capacity);
    this.#distinctDevices?.reserve(capacity);
    this.#capacity = capacity;
  }

  #pathOfSpans(spanId: string): string {
    const cached = this.#paths.get(spanId);
    if (cached !== undefined) return cached;
    const names: string[] = [];
    const seen = new Set<string>();
    for (let id: string | undefined = spanId; id !== undefined && !seen.has(id); ) {
      seen.add(id);
      const span = this.#spans.get(id);
      if (span === undefined) {
        names.push(id);
        break;
      }
      names.push(span.name);
      id = span.parent;
    }
    const path = names.reverse().join("/");
    this.#paths.set(spanId, path);
    return path;
  }

  /** The op name of a row (rows sort by total time, then by op name). */
  #opName(row: number): string {
    return this.#opNames.values[this.#rows.value(row, 0)] as string;
  }

  /** Rows by total descending, ties by op name, then first seen (as a stable sort of the rows). */
  #order(): Int32Array {
    const order = Int32Array.from({ length: this.#rows.size }, (_, row) => row);
    return order.sort(
      (left, right) =>
        this.#total.compareRows(right, left) ||
        compareText(this.#opName(left), this.#opName(right)) ||
        left - right,
    );
  }

  /** The rows in table order as `OperatorRows`: a comparison builds objects only for what it keeps. */
  rows(): OperatorRows {
    const order = this.#order();
    const rowAt = (index: number): number => order[index] as number;
    return {
      group_by: [...this.#groupBy],
      size: order.length,
      fields: (index) => this.#fields(rowAt(index)),
      calls: (index) => this.#calls[rowAt(index)] as number,
      total: (index) => this.#total.get(rowAt(index)),
    };
  }

  result(options: { limit?: number } = {}): OperatorTable {
    const count = this.#rows.size;
    const order = Array.from(this.#order());
    const kept = options.limit === undefined ? order : order.slice(0, Math.max(0, options.limit));
    let sorted: (Float64Array | BigUint64Array)[] | undefined;
    if (this.#durations !== undefined) {
      // Only the printed rows' durations are gathered and sorted.
      const slotOf = new Int32Array(count).fill(-1);
      kept.forEach((row, place) => {
        slotOf[row] = place;
      });
      sorted = this.#durations.sortedDurations(
        slotOf,
        kept.map((row) => this.#calls[row] as number),
      );
    }
    const operators = kept.map((row, place) => this.#stats(row, sorted?.[place]));
    return {
      schema: "cg-trace/operators/1",
      group_by: [...this.#groupBy],
      measured_total_ns: exactU64(this.#measuredTotal),
      op_total_ns: this.#opTotal,
      op_count: this.#opCount,
      operator_count: count,
      percentiles: this.#durations !== undefined ? "exact (nearest rank)" : "not kept",
      operators,
    };
  }

  #fields(row: number): GroupFields {
    const fields: GroupFields = { op_name: this.#opName(row) };
    this.#groupBy.forEach((field, depth) => {
      const id = this.#rows.value(row, depth + 1);
      fields[field] = (
        field === "shape"
          ? this.#shapes
          : field === "dtype"
            ? this.#dtypes
            : field === "device"
              ? this.#devices
              : this.#pathIds
      ).values[id] as string;
    });
    return fields;
  }

  #stats(row: number, sorted: Float64Array | BigUint64Array | undefined): OperatorStats {
    const calls = this.#calls[row] as number;
    const rank = (fraction: number): U64 => {
      const value = sorted?.[Math.max(0, Math.ceil(fraction * calls) - 1)] ?? 0;
      return typeof value === "bigint" ? exactU64(value) : value;
    };
    const fields = this.#fields(row);
    const total = this.#total.get(row);
    const measured = this.#measuredTotal;
    return {
      ...fields,
      calls,
      total_ns: total,
      mean_ns: exactU64(calls === 0 ? 0n : toBig(total) / BigInt(calls)),
      min_ns: this.#min.get(row),
      max_ns: this.#max.get(row),
      p50_ns: rank(0.5),
      p95_ns: rank(0.95),
      share_of_measured: measured > 0n ? Number(total) / Number(measured) : null,
      output_bytes: this.#outputBytes.get(row),
      input_bytes: this.#inputBytes.get(row),
      shapes: this.#distinctShapes?.values(row, this.#shapes.values) ?? [fields.shape as string],
      dtypes: this.#distinctDtypes?.values(row, this.#dtypes.values) ?? [fields.dtype as string],
      devices: this.#distinctDevices?.values(row, this.#devices.values) ?? [fields.device as string],
      shapes_more: this.#shapesMore[row] as number,
    };
  }
}

function withCapacity(column: Float64Array, capacity: number): Float64Array<ArrayBuffer> {
  const grown = new Float64Array(capacity);
  grown.set(column);
  return grown;
}

function compareText(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

/** The operator table of a parsed trace. */
export function operatorTable(document: TraceDocument, options: OperatorTableOptions = {}): OperatorTable {
  // The document's events go through the streamed table's own path: one rule for both.
  const accumulator = accumulatorFor(options);
  const measuredSpans = new Set<string>();
  foldDocument(document, (event) => accumulator.addEvent(event, measuredSpans));
  return accumulator.result(options.limit === undefined ? {} : { limit: options.limit });
}

function accumulatorFor(options: OperatorTableOptions): OperatorAccumulator {
  return new OperatorAccumulator(
    options.groupBy,
    options.percentiles === undefined ? {} : { percentiles: options.percentiles },
  );
}

/** The operator table of a stream of events (bounded memory: no document is built). */
export async function operatorTableOfEvents(
  events: AsyncIterable<TraceEvent> | Iterable<TraceEvent>,
  options: OperatorTableOptions = {},
): Promise<OperatorTable> {
  const accumulator = accumulatorFor(options);
  const measuredSpans = new Set<string>();
  for await (const event of events) accumulator.addEvent(event, measuredSpans);
  return accumulator.result(options.limit === undefined ? {} : { limit: options.limit });
}
