// Every `queryTrace` kind (and the operator table) without building a document. A first pass is the
// streaming summary (health, memory figures, rankings) with a collector per kind fed from its
// events; lists that grow with the trace (timeline points, spans, edges, tensors, gradients) are
// RowSources that read the trace again when written out, so memory follows what must be held: a
// compact span table for `spans` and for operators grouped by path, 8 bytes per op for exact
// operator percentiles, a bounded reorder window of memory events, and the top `limit` entries.
import { MemoryTimeline, type MemoryTimelinePoint, resolveStorageBytes } from "@cg/memory";
import {
  type ColumnBatch,
  type DeviceMemoryEvent,
  type EdgeEvent,
  EVENT_KINDS,
  type GradientEvent,
  type GradientState,
  type TraceEvent,
} from "@cg/schema/core";
import { EFFICIENCY_NOTE, EfficiencyRanking } from "./efficiency-ranking.js";
import type { HealthReport } from "./health-issue.js";
import type { ReadOptions } from "./line-processor.js";
import { MEMORY_CODE, MemoryColumns } from "./memory-columns.js";
import type { OperatorGroupField, OperatorTable } from "./operator-stats.js";
import type {
  EfficiencyResult,
  GradientsResult,
  HeaviestResult,
  MemoryResult,
  QueryKind,
  SlowestResult,
  SpansResult,
  TensorsResult,
} from "./query-trace.js";
import { type ColumnReadOptions, readColumnBatches } from "./read-column-batches.js";
import { MemoryReorderWindow } from "./reorder-window.js";
import { REREAD_BATCH_SIZE, RowSource } from "./row-source.js";
import { SpanPaths } from "./span-paths.js";
import { StreamedOperators } from "./streamed-operators.js";
import { type StreamSummaryOptions, summarizeSharingSpans } from "./summarize-stream.js";
import type { ResolvedTensorEvent, SpanRecord } from "./trace-document.js";
import type { TraceSource } from "./trace-source.js";

/** The kinds of `queryTraceStream`: those of `queryTrace` and `ops` (the operator table). */
export type StreamedQueryKind = QueryKind | "ops";

/** The results of `queryTrace`, with lists that grow with the trace as RowSources. */
export interface StreamedQueryResults {
  slowest: SlowestResult;
  heaviest: HeaviestResult;
  efficiency: EfficiencyResult;
  memory: Omit<MemoryResult, "timeline" | "peak_breakdown" | "by_device"> & {
    timeline: RowSource<MemoryTimelinePoint>;
    peak_breakdown: MemoryResult["peak_breakdown"];
    by_device: MemoryResult["by_device"];
  };
  spans: Omit<SpansResult, "spans" | "edges"> & {
    spans: RowSource<SpanRecord>;
    edges: RowSource<EdgeEvent>;
  };
  tensors: Omit<TensorsResult, "tensors"> & { tensors: RowSource<ResolvedTensorEvent> };
  gradients: Omit<GradientsResult, "gradients" | "counts" | "attention_count"> & {
    gradients: RowSource<GradientEvent>;
    counts: GradientsResult["counts"];
    attention_count: number;
  };
  ops: OperatorTable;
}

export interface QueryStream<K extends StreamedQueryKind> {
  health: HealthReport;
  /** False when the memory events were further out of order than the reorder window. */
  exact: boolean;
  /** How the result was computed where that matters (e.g. why it is not exact). */
  notes: string[];
  result: StreamedQueryResults[K];
}

export interface QueryStreamOptions extends Omit<StreamSummaryOptions, "rankLimit" | "onEvent"> {
  /** Entries of ranked lists and rows of the operator table (default 50, as `queryTrace`). */
  limit?: number;
  /** With kind `ops`: also split rows by these fields. */
  groupBy?: readonly OperatorGroupField[];
}

const DEFAULT_LIMIT = 50;
const DEFAULT_REORDER_WINDOW = 16_384;

/**
 * Runs one query kind over a trace in bounded memory. `open` gives the trace's bytes (a file path,
 * or a function that opens a fresh stream); it is called again for each RowSource that is read.
 * Results equal `queryTrace` on the document (and `operatorTable` for `ops`) whenever `exact` is true.
 */
export async function queryTraceStream<K extends StreamedQueryKind>(
  open: () => TraceSource,
  kind: K,
  options: QueryStreamOptions = {},
): Promise<QueryStream<K>> {
  const limit = options.limit ?? DEFAULT_LIMIT;
  const { limit: _limit, groupBy = [], ...summaryOptions } = options;
  const readOptions = readOptionsOf(options);
  const counts = new EventCounts();
  const efficiency = kind === "efficiency" ? new EfficiencyRanking(limit) : undefined;
  // Spans and paths come from the summary's own span table.
  const spanTable =
    kind === "spans" || (kind === "ops" && groupBy.includes("path")) ? new SpanPaths() : undefined;
  const operators = kind === "ops" ? new StreamedOperators(groupBy, spanTable) : undefined;
  const stream = await summarizeSharingSpans(
    open(),
    {
      ...summaryOptions,
      ...(kind === "slowest" || kind === "heaviest" ? { rankLimit: limit } : {}),
      // Gradients (their states) and ops for the efficiency ranking are read as events; the
      // operator table reads ops from the columns, the rest is counted from the batches' kinds.
      eventKinds: efficiency === undefined ? ["gradient"] : ["op", "gradient"],
      onEvent: (event) => {
        if (event.kind === "gradient") counts.addGradient(event);
        efficiency?.add(event);
      },
      onBatch: (batch) => {
        counts.addBatch(batch);
        operators?.addBatch(batch);
      },
    },
    (table) => spanTable?.use(table),
  );
  spanTable?.complete();
  const base = { schema: "candle-graph/trace-query/1" as const, entrypoint: stream.run.entrypoint };
  const result = await (async (): Promise<StreamedQueryResults[StreamedQueryKind]> => {
    switch (kind) {
      case "slowest":
      case "heaviest": {
        const rankings = stream.rankings as NonNullable<typeof stream.rankings>;
        if (kind === "slowest") {
          const total = stream.summary.total_ns;
          return {
            ...base,
            kind,
            total_ns: total,
            total_ms: Number(total) / 1e6,
            slowest_spans: rankings.slowest_spans,
            slowest_ops: rankings.slowest_ops,
          };
        }
        return {
          ...base,
          kind,
          peak_bytes: stream.memory.peak_bytes,
          heaviest_spans: rankings.heaviest_spans,
          heaviest_ops: rankings.heaviest_ops,
        };
      }
      case "efficiency":
        return { ...base, kind, note: EFFICIENCY_NOTE, ops: (efficiency as EfficiencyRanking).values() };
      case "memory": {
        const { timeline: _timeline, peak_breakdown, by_device, ...summary } = stream.memory;
        const reorderWindow = options.reorderWindow ?? DEFAULT_REORDER_WINDOW;
        return {
          ...base,
          kind,
          summary,
          timeline: new RowSource(counts.memory, () => timelineBatches(open, readOptions, reorderWindow)),
          peak_breakdown,
          by_device,
        };
      }
      case "spans": {
        const table = spanTable as SpanPaths;
        return {
          ...base,
          kind,
          spans: new RowSource(table.table.size, () => spanBatches(table)),
          edges: new RowSource(counts.edges, () => eventBatches(open, readOptions, counts.edges, "edge")),
        };
      }
      case "tensors":
        return {
          ...base,
          kind,
          tensors: new RowSource(counts.tensors, () => tensorBatches(open, readOptions, counts.tensors)),
        };
      case "gradients":
        return {
          ...base,
          kind,
          gradients: new RowSource(counts.gradients, () =>
            eventBatches(open, readOptions, counts.gradients, "gradient"),
          ),
          counts: counts.gradientStates,
          attention_count: counts.gradients - counts.gradientStates.present,
        };
      case "ops":
        return (operators as StreamedOperators).result(open, readOptions, stream.summary.total_ns, limit);
      default:
        throw new RangeError(`unknown query kind ${JSON.stringify(kind)}`);
    }
  })();
  return {
    health: stream.health,
    exact: stream.exact,
    notes: stream.notes,
    result: result as StreamedQueryResults[K],
  };
}

/** The reader settings of the first read, for the next ones (diagnostics are reported once). */
export function readOptionsOf(options: QueryStreamOptions): ReadOptions {
  const read: ReadOptions = {};
  if (options.mode !== undefined) read.mode = options.mode;
  if (options.maxLineLength !== undefined) read.maxLineLength = options.maxLineLength;
  if (options.file !== undefined) read.file = options.file;
  return read;
}

/** Events of each kind, and gradient facts by state. */
const MEMORY = EVENT_KINDS.indexOf("memory");
const EDGE = EVENT_KINDS.indexOf("edge");
const TENSOR = EVENT_KINDS.indexOf("tensor");
const GRADIENT = EVENT_KINDS.indexOf("gradient");

class EventCounts {
  memory = 0;
  edges = 0;
  tensors = 0;
  gradients = 0;
  readonly gradientStates: Record<GradientState, number> = { present: 0, missing: 0, zero: 0, non_finite: 0 };

  /** Counts the batch's events by kind (from its kind codes, no event object). */
  addBatch(batch: ColumnBatch): void {
    const kinds = batch.kinds;
    for (let at = 0; at < batch.size; at++) {
      const code = kinds[at];
      if (code === MEMORY) this.memory++;
      else if (code === EDGE) this.edges++;
      else if (code === TENSOR) this.tensors++;
      else if (code === GRADIENT) this.gradients++;
    }
  }

  addGradient(event: GradientEvent): void {
    this.gradientStates[event.state]++;
  }
}

/** Spans in document order (by id, code point order) as records, a batch at a time. */
async function* spanBatches(spans: SpanPaths): AsyncGenerator<SpanRecord[]> {
  const table = spans.table;
  const order = new Int32Array(table.size);
  for (let row = 0; row < order.length; row++) order[row] = row;
  order.sort((left, right) => table.ids.compare(left, right));
  for (let from = 0; from < order.length; from += REREAD_BATCH_SIZE) {
    const batch: SpanRecord[] = [];
    for (let at = from; at < Math.min(order.length, from + REREAD_BATCH_SIZE); at++) {
      batch.push(table.record(order[at] as number));
    }
    yield batch;
  }
}

/** The events of one kind, in file order, read again from the trace. */
async function* eventBatches<K extends "edge" | "gradient" | "tensor">(
  open: () => TraceSource,
  readOptions: ReadOptions,
  expected: number,
  kind: K,
): AsyncGenerator<Extract<TraceEvent, { kind: K }>[]> {
  if (expected === 0) return;
  // Lines of other kinds are skipped by their first bytes: the first read checked them.
  const options = { ...readOptions, kinds: [kind], batchSize: REREAD_BATCH_SIZE };
  for await (const batch of readColumnBatches(open(), options)) {
    // Only the events asked for become objects; the batch is filled again after the yield.
    const code = batch.code(kind);
    const rows: Extract<TraceEvent, { kind: K }>[] = [];
    for (let at = 0; at < batch.size; at++) {
      if (batch.kinds[at] === code) rows.push(batch.event(at) as Extract<TraceEvent, { kind: K }>);
    }
    if (rows.length > 0) yield rows;
  }
}

/** Tensor records with `storage_bytes` resolved (spec §15.4), as the document holds them. */
async function* tensorBatches(
  open: () => TraceSource,
  readOptions: ReadOptions,
  expected: number,
): AsyncGenerator<ResolvedTensorEvent[]> {
  for await (const rows of eventBatches(open, readOptions, expected, "tensor")) {
    for (const tensor of rows) {
      if (tensor.storage_bytes === undefined) {
        tensor.storage_bytes = resolveStorageBytes(undefined, tensor.shape, tensor.dtype);
      }
    }
    yield rows as ResolvedTensorEvent[];
  }
}

/**
 * The memory timeline (spec §11 step 5), a point per memory event, from a second read: events pass
 * the same reorder window as the summary's, so points come in analysis order while `exact` holds.
 */
async function* timelineBatches(
  open: () => TraceSource,
  readOptions: ReadOptions,
  reorderWindow: number,
): AsyncGenerator<MemoryTimelinePoint[]> {
  let points: MemoryTimelinePoint[] = [];
  const timeline = new MemoryTimeline({ onPoint: (point) => points.push(point) });
  const window = new MemoryReorderWindow(reorderWindow, timeline, () => {});
  // Only memory and device-memory lines are decoded; the first read checked the others.
  const options: ColumnReadOptions = {
    ...readOptions,
    kinds: ["memory", "device_memory"],
    batchSize: REREAD_BATCH_SIZE,
  };
  for await (const batch of readColumnBatches(open(), options)) {
    // Memory events go to the window as their column values; device samples are few.
    const memory = new MemoryColumns(batch);
    const deviceMemory = batch.code("device_memory");
    for (let at = 0; at < batch.size; at++) {
      const code = batch.kinds[at];
      if (code === MEMORY_CODE) memory.pushTo(window, batch.rows[at] as number);
      else if (code === deviceMemory) timeline.pushDeviceSample(batch.event(at) as DeviceMemoryEvent);
    }
    if (points.length > 0) {
      yield points;
      points = [];
    }
  }
  window.drain();
  if (points.length > 0) yield points;
}
