import { analyzeMemory, type MemoryAnalysis } from "@cg/memory";
import {
  analyzeHealth,
  type HealthReport,
  OperatorAccumulator,
  type OperatorTable,
  operatorTable,
  queryTrace,
  type SpanCost,
  type StreamSummary,
  summarize,
  type TraceDocument,
  type TraceSummary,
} from "@cg/parser";
import {
  addU64Saturating,
  type ColumnBatch,
  compareU64,
  type DeviceMemoryEvent,
  EVENT_KINDS,
  type EventKind,
  GRADIENT_STATES,
  type GradientState,
  type RunMetadata,
  type TraceEvent,
  type U64,
} from "@cg/schema/core";

export interface DeviceMemoryView {
  device: string;
  samples: number;
  first_used_bytes: U64;
  last_used_bytes: U64;
  max_used_bytes: U64;
  last_free_bytes: U64;
  /** Max of used + free over the samples (spec §11 capacity). */
  capacity_bytes: U64;
}

export interface GradientView {
  root: string;
  key: string;
  state: GradientState;
  norm?: number;
}

/** Everything `cg-trace summary` shows; also its `--json` output. */
export interface SummaryView {
  schema: "cg-trace/summary/1";
  file: string;
  provenance: RunMetadata & { schema: string };
  health: HealthReport;
  summary: Omit<TraceSummary, "self_times">;
  measured_total_ns: U64;
  top_spans: SpanCost[];
  top_ops: ReturnType<typeof queryTrace<"slowest">>["slowest_ops"];
  /** The operator table (per op name) by total time, the `limit` costliest operators. */
  top_operators: OperatorTable;
  /** `peak_breakdown` holds the largest `limit` allocations live at the peak; the rest are counted. */
  memory: Omit<MemoryAnalysis, "timeline"> & {
    /** Allocations live at the peak, all of them (`peak_breakdown` lists the largest `limit`). */
    peak_breakdown_total: number;
    /** How many of them `peak_breakdown` leaves out (raise `--limit` to see more). */
    peak_breakdown_omitted: number;
  };
  device_memory: DeviceMemoryView[];
  gradients: {
    count: number;
    counts: Record<GradientState, number>;
    /** Facts whose state is not `present`. */
    attention_count: number;
    facts: GradientView[];
  };
  /** Present when a figure is approximate (a streamed read whose reorder window was too small). */
  notes?: string[];
}

function limitedMemory(memory: MemoryAnalysis, limit: number): SummaryView["memory"] {
  const { timeline: _timeline, ...memoryWithoutTimeline } = memory;
  return {
    ...memoryWithoutTimeline,
    peak_breakdown: memory.peak_breakdown.slice(0, limit),
    peak_breakdown_total: memory.peak_breakdown.length,
    peak_breakdown_omitted: Math.max(0, memory.peak_breakdown.length - limit),
  };
}

const emptyGradientCounts = (): Record<GradientState, number> =>
  Object.fromEntries(GRADIENT_STATES.map((state) => [state, 0])) as Record<GradientState, number>;

const OP = EVENT_KINDS.indexOf("op");

/** The device-memory and gradient parts of the summary, folded one event at a time. */
export class SummaryEvidence {
  /** The kinds `add` reads; a reader may give it only these. */
  static readonly kinds: readonly EventKind[] = ["span_start", "span_end", "op", "device_memory", "gradient"];
  /** The kinds `add` reads when the ops come from the batches (`addOps`). */
  static readonly kindsBesideOps: readonly EventKind[] = SummaryEvidence.kinds.filter(
    (kind) => kind !== "op",
  );
  readonly #devices = new Map<string, DeviceMemoryView>();
  readonly #counts = emptyGradientCounts();
  readonly #facts: GradientView[] = [];
  // The operator table: one row per op name and 8 bytes per op (for exact percentiles).
  readonly #operators = new OperatorAccumulator();
  readonly #openMeasured = new Set<string>();

  add = (event: TraceEvent): void => {
    this.#operators.addEvent(event, this.#openMeasured);
    if (event.kind === "device_memory") this.#addSample(event);
    else if (event.kind === "gradient") {
      this.#counts[event.state] += 1;
      const view: GradientView = { root: event.root, key: event.key, state: event.state };
      if (event.norm !== undefined) view.norm = event.norm;
      this.#facts.push(view);
    }
  };

  /**
   * The ops of a column batch, read from its op columns (no event objects): with `add` given
   * `kindsBesideOps`, the same figures as `add` given every kind.
   */
  addOps = (batch: ColumnBatch): void => {
    const kinds = batch.kinds;
    const rows = batch.rows;
    for (let at = 0; at < batch.size; at++) {
      if (kinds[at] === OP) this.#operators.addOpRow(batch, rows[at] as number);
    }
  };

  /** The `limit` costliest operators by total time. */
  operators(limit: number): OperatorTable {
    return this.#operators.result({ limit });
  }

  deviceMemory(): DeviceMemoryView[] {
    return [...this.#devices.values()].sort((left, right) => (left.device < right.device ? -1 : 1));
  }

  gradients(): SummaryView["gradients"] {
    const count = this.#facts.length;
    return { count, counts: this.#counts, attention_count: count - this.#counts.present, facts: this.#facts };
  }

  #addSample(sample: DeviceMemoryEvent): void {
    // Saturating, as the memory timeline counts it: used + free may pass 2^64 − 1.
    const capacity = addU64Saturating(sample.used_bytes, sample.free_bytes);
    const view = this.#devices.get(sample.device);
    if (view === undefined) {
      this.#devices.set(sample.device, {
        device: sample.device,
        samples: 1,
        first_used_bytes: sample.used_bytes,
        last_used_bytes: sample.used_bytes,
        max_used_bytes: sample.used_bytes,
        last_free_bytes: sample.free_bytes,
        capacity_bytes: capacity,
      });
      return;
    }
    view.samples += 1;
    view.last_used_bytes = sample.used_bytes;
    view.last_free_bytes = sample.free_bytes;
    if (compareU64(sample.used_bytes, view.max_used_bytes) > 0) view.max_used_bytes = sample.used_bytes;
    if (compareU64(capacity, view.capacity_bytes) > 0) view.capacity_bytes = capacity;
  }
}

/** Builds the summary of a parsed trace: provenance, health, costs, memory and gradients. */
export function buildSummaryView(document: TraceDocument, file: string, limit = 10): SummaryView {
  const health = analyzeHealth(document);
  const memory = analyzeMemory(
    { memory: document.memory, spans: document.spans, device_memory: document.device_memory },
    { timeline: false },
  );
  const { self_times: _selfTimes, ...summary } = summarize(document, { memory });
  const slowest = queryTrace(document, "slowest", { limit });
  const evidence = new SummaryEvidence();
  for (const sample of document.device_memory) evidence.add(sample);
  for (const gradient of document.gradients) evidence.add(gradient);
  return {
    schema: "cg-trace/summary/1",
    file,
    provenance: { schema: document.schema, ...document.run },
    health,
    summary,
    measured_total_ns: summary.total_ns,
    top_spans: slowest.slowest_spans,
    top_ops: slowest.slowest_ops,
    top_operators: operatorTable(document, { limit }),
    memory: limitedMemory(memory, limit),
    device_memory: evidence.deviceMemory(),
    gradients: evidence.gradients(),
  };
}

/**
 * The same view from one streaming pass (`summarizeStream` with `rankLimit` and `evidence.add` as
 * its `onEvent`): memory follows the span count, not the file size.
 */
export function summaryViewFromStream(
  stream: StreamSummary,
  evidence: SummaryEvidence,
  file: string,
  limit: number,
): SummaryView {
  const rankings = stream.rankings;
  if (rankings === undefined) throw new Error("summaryViewFromStream: the stream was read without rankLimit");
  return {
    schema: "cg-trace/summary/1",
    file,
    provenance: { schema: stream.schema, ...stream.run },
    health: stream.health,
    summary: stream.summary,
    measured_total_ns: stream.summary.total_ns,
    top_spans: rankings.slowest_spans,
    top_ops: rankings.slowest_ops,
    top_operators: evidence.operators(limit),
    memory: limitedMemory(stream.memory, limit),
    device_memory: evidence.deviceMemory(),
    gradients: evidence.gradients(),
    ...(stream.notes.length > 0 ? { notes: stream.notes } : {}),
  };
}
