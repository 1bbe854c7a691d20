// The per-operator table PyTorch users reach for first (`key_averages`): per op name, optionally
// split by shape, dtype, device or span path, how often it ran and how long it took. Built from a
// document or from a stream of events with the same accumulator, so both give the same result.
import { resolveStorageBytes } from "@cg/memory";
import type { OpEvent, SpanStartEvent, TraceEvent, U64 } from "@cg/schema";
import type { TraceDocument } from "./trace-document.js";

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
   * Percentiles from every call's duration (8 bytes per op are kept while aggregating); "not kept"
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
  /** Keep every call's duration for exact p50 and p95 (default true; 8 bytes per op). */
  percentiles?: boolean;
}

export interface OperatorTableOptions {
  groupBy?: readonly OperatorGroupField[];
  /** Keep every call's duration for exact p50 and p95 (default true; 8 bytes per op). */
  percentiles?: boolean;
  /** Rows kept, the costliest first (default: all). */
  limit?: number;
}

const DISTINCT_KEPT = 8;
/** Durations per chunk of an operator's calls (64 KiB). */
const DURATION_CHUNK = 8192;

// Exact u64 arithmetic throughout (durations and bytes may exceed 2^53); results are numbers
// again whenever they fit, as everywhere else in the parser's output.
const toBig = (value: U64): bigint => (typeof value === "bigint" ? value : BigInt(value));
const toU64 = (value: bigint): U64 => (value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value);

/** `[32, 64]` for a shape; `[]` for a scalar. */
export function formatShape(shape: readonly U64[]): string {
  return `[${shape.map((dimension) => String(dimension)).join(", ")}]`;
}

/** A u64 sum or extreme: a number while below 2^53, a bigint past it. */
type Exact = number | bigint;

function addExact(sum: Exact, value: Exact): Exact {
  if (typeof sum === "number" && typeof value === "number") {
    const result = sum + value;
    if (result <= Number.MAX_SAFE_INTEGER) return result;
  }
  return BigInt(sum) + BigInt(value);
}

function exactU64(value: Exact): U64 {
  return typeof value === "number" ? value : toU64(value);
}

/** Up to DISTINCT_KEPT distinct values in first-seen order (a short array: lighter than a Set). */
function keepDistinct(values: string[], value: string): boolean {
  if (values.includes(value)) return true;
  if (values.length >= DISTINCT_KEPT) return false;
  values.push(value);
  return true;
}

type GroupFields = Omit<
  OperatorStats,
  | "calls"
  | "total_ns"
  | "mean_ns"
  | "min_ns"
  | "max_ns"
  | "p50_ns"
  | "p95_ns"
  | "share_of_measured"
  | "output_bytes"
  | "input_bytes"
  | "shapes"
  | "dtypes"
  | "devices"
  | "shapes_more"
>;

// One row being aggregated. Kept small (a table grouped by path can have a row per span and op):
// sums are numbers until they pass 2^53, durations in chunks (see below), and the distinct shapes, dtypes and devices short arrays, not kept at all for a field the rows are split by.
class Group {
  calls = 0;
  total: Exact = 0;
  min: Exact = 0;
  max: Exact = 0;
  outputBytes: Exact = 0;
  inputBytes: Exact = 0;
  /**
   * Every call's duration, in fixed-size chunks: growing never copies, and at most one chunk is
   * partly empty, so a million calls hold about 8 MB (a doubling array could hold 24 MB mid-copy).
   * Undefined when percentiles are not kept.
   */
  readonly durations: BigUint64Array[] | undefined;
  readonly shapes: string[] | undefined;
  shapesMore = 0;
  readonly dtypes: string[] | undefined;
  readonly devices: string[] | undefined;

  constructor(
    readonly fields: GroupFields,
    percentiles: boolean,
  ) {
    if (percentiles) this.durations = [];
    if (fields.shape === undefined) this.shapes = [];
    if (fields.dtype === undefined) this.dtypes = [];
    if (fields.device === undefined) this.devices = [];
  }

  add(
    duration: Exact,
    shape: string,
    dtype: string,
    device: string,
    outputBytes: Exact,
    inputBytes: Exact,
  ): void {
    const durations = this.durations;
    if (durations !== undefined) {
      const slot = this.calls % DURATION_CHUNK;
      if (slot === 0) {
        // The first chunk starts small (a rare operator stays cheap) and grows; the rest are full size.
        durations.push(new BigUint64Array(durations.length === 0 ? 4 : DURATION_CHUNK));
      }
      let chunk = durations[durations.length - 1] as BigUint64Array;
      if (slot >= chunk.length) {
        const grown = new BigUint64Array(Math.min(chunk.length * 4, DURATION_CHUNK));
        grown.set(chunk);
        durations[durations.length - 1] = grown;
        chunk = grown;
      }
      chunk[slot] = BigInt(duration);
    }
    if (this.calls === 0 || duration < this.min) this.min = duration;
    this.calls += 1;
    this.total = addExact(this.total, duration);
    if (duration > this.max) this.max = duration;
    this.outputBytes = addExact(this.outputBytes, outputBytes);
    this.inputBytes = addExact(this.inputBytes, inputBytes);
    if (this.shapes !== undefined && !keepDistinct(this.shapes, shape)) this.shapesMore += 1;
    if (this.dtypes !== undefined) keepDistinct(this.dtypes, dtype);
    if (this.devices !== undefined) keepDistinct(this.devices, device);
  }

  stats(measuredTotal: bigint): OperatorStats {
    let sorted: BigUint64Array | undefined;
    if (this.durations !== undefined) {
      sorted = new BigUint64Array(this.calls);
      let at = 0;
      for (const chunk of this.durations) {
        const part = chunk.subarray(0, Math.min(chunk.length, this.calls - at));
        sorted.set(part, at);
        at += part.length;
      }
      sorted.sort();
    }
    const rank = (fraction: number): U64 =>
      toU64(sorted?.[Math.max(0, Math.ceil(fraction * this.calls) - 1)] ?? 0n);
    const total = BigInt(this.total);
    return {
      ...this.fields,
      calls: this.calls,
      total_ns: exactU64(this.total),
      mean_ns: toU64(this.calls === 0 ? 0n : total / BigInt(this.calls)),
      min_ns: exactU64(this.min),
      max_ns: exactU64(this.max),
      p50_ns: rank(0.5),
      p95_ns: rank(0.95),
      share_of_measured: measuredTotal > 0n ? Number(total) / Number(measuredTotal) : null,
      output_bytes: exactU64(this.outputBytes),
      input_bytes: exactU64(this.inputBytes),
      shapes: this.shapes?.slice() ?? [this.fields.shape as string],
      dtypes: this.dtypes?.slice() ?? [this.fields.dtype as string],
      devices: this.devices?.slice() ?? [this.fields.device as string],
      shapes_more: this.shapesMore,
    };
  }
}

/** Op name → first group field's value → … → the row. */
type GroupIndex = Map<string, GroupIndex | Group>;

/**
 * Aggregates ops one at a time (from a document or a stream). Holds one row per operator, 8 bytes
 * per op for exact percentiles, and, when grouping by path, each span's name and parent.
 */
export class OperatorAccumulator {
  readonly #groupBy: readonly OperatorGroupField[];
  /** Rows in first-seen order; found through one map level per key field (no key string per op). */
  readonly #groups: Group[] = [];
  readonly #index: GroupIndex = new Map();
  readonly #spans = new Map<string, { name: string; parent: string | undefined }>();
  readonly #paths = new Map<string, string>();
  readonly #pathOf: (spanId: string) => string;
  readonly #percentiles: boolean;
  #measuredTotal = 0n;
  #opTotal: Exact = 0;
  #opCount = 0;

  constructor(groupBy: readonly OperatorGroupField[] = [], options: OperatorAccumulatorOptions = {}) {
    this.#groupBy = OPERATOR_GROUP_FIELDS.filter((field) => groupBy.includes(field));
    this.#pathOf = options.pathOf ?? ((spanId) => this.#pathOfSpans(spanId));
    this.#percentiles = options.percentiles ?? true;
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
    const shape = formatShape(op.shape);
    const groupBy = this.#groupBy;
    let level = this.#index;
    let key = op.op_name;
    for (let depth = 0; depth < groupBy.length; depth++) {
      let next = level.get(key) as GroupIndex | undefined;
      if (next === undefined) {
        next = new Map();
        level.set(key, next);
      }
      level = next;
      const field = groupBy[depth] as OperatorGroupField;
      key = field === "shape" ? shape : field === "path" ? this.#pathOf(op.span_id) : op[field];
    }
    let group = level.get(key) as Group | undefined;
    if (group === undefined) {
      const fields: Group["fields"] = { op_name: op.op_name };
      for (const field of groupBy) {
        fields[field] = field === "shape" ? shape : field === "path" ? this.#pathOf(op.span_id) : op[field];
      }
      group = new Group(fields, this.#percentiles);
      level.set(key, group);
      this.#groups.push(group);
    }
    const duration = op.duration_ns;
    const output = resolveStorageBytes(op.storage_bytes, op.shape, op.dtype);
    group.add(duration, shape, op.dtype, op.device, output, op.input_storage_bytes ?? 0);
    this.#opTotal = addExact(this.#opTotal, duration);
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

  result(options: { limit?: number } = {}): OperatorTable {
    const rows: OperatorStats[] = [];
    for (const group of this.#groups) rows.push(group.stats(this.#measuredTotal));
    rows.sort(
      (left, right) =>
        compareBig(toBig(right.total_ns), toBig(left.total_ns)) || compareText(left.op_name, right.op_name),
    );
    return {
      schema: "cg-trace/operators/1",
      group_by: [...this.#groupBy],
      measured_total_ns: toU64(this.#measuredTotal),
      op_total_ns: exactU64(this.#opTotal),
      op_count: this.#opCount,
      operator_count: rows.length,
      percentiles: this.#percentiles ? "exact (nearest rank)" : "not kept",
      operators: options.limit === undefined ? rows : rows.slice(0, options.limit),
    };
  }
}

function compareBig(left: bigint, right: bigint): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

function compareText(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

/** The operator table of a parsed trace. */
export function operatorTable(document: TraceDocument, options: OperatorTableOptions = {}): OperatorTable {
  const accumulator = new OperatorAccumulator(
    options.groupBy,
    options.percentiles === undefined ? {} : { percentiles: options.percentiles },
  );
  for (const span of document.spans) {
    accumulator.addSpan(span);
    if (span.measured) accumulator.addMeasuredDuration(span.duration_ns);
  }
  for (const op of document.ops) accumulator.addOp(op);
  return accumulator.result(options.limit === undefined ? {} : { limit: options.limit });
}

/** The operator table of a stream of events (bounded memory: no document is built). */
export async function operatorTableOfEvents(
  events: AsyncIterable<TraceEvent> | Iterable<TraceEvent>,
  options: OperatorTableOptions = {},
): Promise<OperatorTable> {
  const accumulator = new OperatorAccumulator(options.groupBy);
  const measuredSpans = new Set<string>();
  for await (const event of events) accumulator.addEvent(event, measuredSpans);
  return accumulator.result(options.limit === undefined ? {} : { limit: options.limit });
}
