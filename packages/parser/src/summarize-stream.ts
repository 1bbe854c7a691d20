// Summary, health and memory peak in one streaming pass, without building a document. Kept: one
// row per span in a compact column table (health and depth need the whole span tree; about 30
// bytes per span plus its id and name bytes), the live allocations, a bounded reorder window of
// memory events, and the span references still unresolved. Ops, tensors, memory events, gradients
// and edges are counted and dropped.
import { type MemoryAnalysis, MemoryTimeline, resolveStorageBytes } from "@cg/memory";
import { normalizeU64, type RunMetadata, type TraceEvent } from "@cg/schema";
import { AllocationPairing } from "./allocation-pairing.js";
import {
  type HealthIssue,
  type HealthOptions,
  type HealthReport,
  healthReport,
  unknownEdgeSpanIssue,
  unknownSpanIssue,
} from "./health-issue.js";
import type { ReadOptions } from "./line-processor.js";
import { pushPresenceWarnings } from "./presence-warnings.js";
import { createProcessor, processChunks } from "./process-chunks.js";
import type { OpCost } from "./query-trace.js";
import { MemoryReorderWindow } from "./reorder-window.js";
import type { SpanCost } from "./span-costs.js";
import { SpanTable } from "./span-table.js";
import { opCost, rankSpanCosts, SpanOpTotals, TopList } from "./span-table-costs.js";
import { spanTableIssues } from "./span-table-health.js";
import type { TraceSummary } from "./summarize.js";
import { TraceParseError } from "./trace-parse-error.js";
import type { TraceSource } from "./trace-source.js";

export interface StreamSummaryOptions extends ReadOptions, HealthOptions {
  /**
   * Memory events held back to restore timestamp order (default 16,384). Writer output is sorted
   * or nearly so; as long as no memory event arrives after more than this many memory events with a
   * later timestamp (ties may come in any order), the memory figures equal those of `analyzeMemory`
   * on the whole document and `exact` stays true. Each held event costs about 100 bytes.
   */
  reorderWindow?: number;
  /**
   * The most bytes the span table may hold (default 1 GiB, about 25 million spans with short ids).
   * Past it the read stops with a `memory_budget` error that says how to go on.
   */
  spanBudgetBytes?: number;
  /**
   * Also rank spans and ops like `queryTrace` "slowest" and "heaviest", keeping this many of each
   * (the result's `rankings`). Costs a few typed columns per span and nothing per op.
   */
  rankLimit?: number;
  /** Sees every accepted event, in file order, after the summary took it (for figures of its own). */
  onEvent?: (event: TraceEvent) => void;
}

export interface StreamRankings {
  slowest_spans: SpanCost[];
  slowest_ops: OpCost[];
  heaviest_spans: SpanCost[];
  heaviest_ops: OpCost[];
}

export interface StreamSummary {
  schema: string;
  run: RunMetadata;
  summary: Omit<TraceSummary, "self_times">;
  health: HealthReport;
  /** The memory analysis without its timeline. */
  memory: MemoryAnalysis;
  /**
   * False when memory events were further out of order than the reorder window: the memory figures
   * (and the health allocation pairing) may then differ from a whole-document analysis.
   */
  exact: boolean;
  /** Human-readable notes on how the result was computed (e.g. why it is not exact). */
  notes: string[];
  /** With `rankLimit`: spans and ops ranked as `queryTrace` ranks them. */
  rankings?: StreamRankings;
  /** Physical lines and events read. */
  lines: number;
  events: number;
}

const DEFAULT_REORDER_WINDOW = 16_384;
const DEFAULT_SPAN_BUDGET_BYTES = 1 << 30;
/** Spans between two looks at the span table's size. */
const BUDGET_CHECK_SPANS = 1 << 16;

/** Streams a trace once and returns its summary, health and memory figures (spec §10–§12). */
export async function summarizeStream(
  source: TraceSource,
  options: StreamSummaryOptions = {},
): Promise<StreamSummary> {
  let meta: Extract<TraceEvent, { kind: "meta" }> | undefined;
  let ops = 0;
  let tensors = 0;
  let memoryEvents = 0;
  let allocs = 0;
  let frees = 0;
  let deviceSamples = 0;
  let gradients = 0;
  let edges = 0;
  let events = 0;
  // References to spans not (yet) seen; resolved at the end, in file order per group.
  const pendingOps: string[] = [];
  const pendingTensors: string[] = [];
  const pendingMemory: string[] = [];
  const pendingEdges: { from: string; to: string }[] = [];
  const budget = options.spanBudgetBytes ?? DEFAULT_SPAN_BUDGET_BYTES;
  const onEvent = options.onEvent;

  const rankLimit = options.rankLimit;
  const opTotals = rankLimit === undefined ? undefined : new SpanOpTotals();
  const slowestOps = new TopList<OpCost>(rankLimit ?? 0);
  const heaviestOps = new TopList<OpCost>(rankLimit ?? 0);
  // Ops of spans not started yet, by span id (their totals join the span when it starts).
  const earlyOps = new Map<string, { count: number; ns: bigint; bytes: bigint }>();
  const rankOp = (event: Extract<TraceEvent, { kind: "op" }>): void => {
    const bytes = resolveStorageBytes(event.storage_bytes, event.shape, event.dtype);
    const row = ids.get(event.span_id);
    let ordinal: number;
    if (row >= 0 && row < spans.size) {
      ordinal = (opTotals as SpanOpTotals).add(row, event.duration_ns, bytes);
    } else {
      const early = earlyOps.get(event.span_id) ?? { count: 0, ns: 0n, bytes: 0n };
      ordinal = early.count++;
      early.ns += BigInt(event.duration_ns);
      early.bytes += BigInt(bytes);
      earlyOps.set(event.span_id, early);
    }
    const cost = () => opCost({ ...event, storage_bytes: bytes }, ordinal);
    const duration = BigInt(event.duration_ns);
    if (slowestOps.admits(duration)) slowestOps.offer(duration, `${event.span_id}/op/${ordinal}`, cost);
    const size = BigInt(bytes);
    if (heaviestOps.admits(size)) heaviestOps.offer(size, `${event.span_id}/op/${ordinal}`, cost);
  };

  const sink = (event: TraceEvent, line: number, index: number): void => {
    events++;
    onEvent?.(event);
    switch (event.kind) {
      case "op":
        ops++;
        if (ids.get(event.span_id) < 0) pendingOps.push(event.span_id);
        if (opTotals !== undefined) rankOp(event);
        return;
      case "tensor":
        tensors++;
        if (ids.get(event.span_id) < 0) pendingTensors.push(event.span_id);
        return;
      case "memory": {
        memoryEvents++;
        if (event.action === "alloc") allocs++;
        else frees++;
        if (ids.get(event.span_id) < 0) pendingMemory.push(event.span_id);
        window.push(event);
        return;
      }
      case "span_start": {
        const row = processor.lastSpanRow;
        spans.start(row, event);
        const early = earlyOps.get(event.id);
        if (early !== undefined && opTotals !== undefined) {
          opTotals.add(row, normalizeU64(early.ns), normalizeU64(early.bytes), early.count);
          earlyOps.delete(event.id);
        }
        if ((row & (BUDGET_CHECK_SPANS - 1)) === 0 && spans.byteLength > budget) {
          throw overBudget(processor.file, line, index, spans.size, spans.byteLength, budget);
        }
        return;
      }
      case "span_end":
        spans.end(processor.lastSpanRow, event);
        return;
      case "device_memory":
        deviceSamples++;
        timeline.pushDeviceSample(event);
        return;
      case "gradient":
        gradients++;
        return;
      case "edge":
        edges++;
        if (ids.get(event.from_span) < 0 || ids.get(event.to_span) < 0) {
          pendingEdges.push({ from: event.from_span, to: event.to_span });
        }
        return;
      case "meta":
        meta ??= event;
        return;
    }
  };

  const processor = createProcessor(source, options, sink);
  const ids = processor.spanIds;
  const spans = new SpanTable(ids);
  const timeline = new MemoryTimeline({
    timeline: false,
    spanStep: (spanId) => {
      const row = ids.get(spanId);
      return row >= 0 && row < spans.size ? spans.step(row) : undefined;
    },
  });
  const pairingIssues: HealthIssue[] = [];
  const pairing = new AllocationPairing();
  const reorderWindow = options.reorderWindow ?? DEFAULT_REORDER_WINDOW;
  const window = new MemoryReorderWindow(
    reorderWindow,
    (event) => timeline.push(event),
    (device, tensorId, action) => pairing.add(device, tensorId, action, pairingIssues),
  );
  for await (const _ of processChunks(source, processor)) {
    // Events were folded into the state as each chunk was processed.
  }
  window.drain();
  if (meta === undefined) throw new Error("summarizeStream: no meta event"); // the processor rejects this first

  const issues: HealthIssue[] = [];
  const structure = spanTableIssues(spans, options, issues);
  const { counts, maxDepth } = structure;
  for (const spanId of pendingOps) {
    if (ids.get(spanId) < 0) issues.push(unknownSpanIssue("operation", spanId));
  }
  for (const spanId of pendingTensors) {
    if (ids.get(spanId) < 0) issues.push(unknownSpanIssue("tensor", spanId));
  }
  for (const spanId of pendingMemory) {
    if (ids.get(spanId) < 0) issues.push(unknownSpanIssue("memory", spanId));
  }
  for (const edge of pendingEdges) {
    if (ids.get(edge.from) < 0 || ids.get(edge.to) < 0) issues.push(unknownEdgeSpanIssue(edge.from, edge.to));
  }
  for (const issue of pairingIssues) issues.push(issue);
  pairing.finish(issues);
  pushPresenceWarnings(issues, {
    operations: ops,
    tensors,
    memory: memoryEvents,
    deviceMemory: deviceSamples,
    gradients,
    forward: counts.forward,
    backward: counts.backward,
    optimizer: counts.optimizer,
    train: meta.phase === "train",
  });
  const health = healthReport(issues, spans.size, counts, {
    operations: ops,
    tensors,
    memory_events: memoryEvents,
    device_memory_samples: deviceSamples,
    gradients,
    edges,
  });

  const memory = timeline.result();
  const exact = window.exact;
  const notes: string[] = [];
  if (!exact) {
    notes.push(
      `memory events arrived more than ${reorderWindow} events out of timestamp order; memory figures and allocation pairing may differ from a whole-document analysis (raise reorderWindow or use parseTrace)`,
    );
  }
  const { kind: _kind, schema, ...run } = meta;
  let rankings: StreamRankings | undefined;
  if (opTotals !== undefined && rankLimit !== undefined) {
    const ranked = rankSpanCosts(spans, structure, opTotals, options, rankLimit);
    rankings = {
      slowest_spans: ranked.slowest,
      slowest_ops: slowestOps.values(),
      heaviest_spans: ranked.heaviest,
      heaviest_ops: heaviestOps.values(),
    };
  }
  return {
    ...(rankings === undefined ? {} : { rankings }),
    schema,
    run,
    summary: {
      op_count: ops,
      total_ns: measuredTableTotal(spans),
      span_count: spans.size,
      root_span_count: counts.roots,
      max_depth: maxDepth,
      alloc_count: allocs,
      free_count: frees,
      peak_bytes: memory.peak_bytes,
    },
    health,
    memory,
    exact,
    notes,
    lines: processor.lineCount,
    events,
  };
}

/** Exact total of the measured spans' durations. */
function measuredTableTotal(spans: SpanTable): TraceSummary["total_ns"] {
  let total = 0n;
  for (let row = 0; row < spans.size; row++) if (spans.measured(row)) total += BigInt(spans.durationU64(row));
  return total <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(total) : total;
}

function overBudget(
  file: string,
  line: number,
  index: number,
  spanCount: number,
  bytes: number,
  budget: number,
): TraceParseError {
  const megabytes = (value: number) => `${Math.round(value / (1 << 20))} MB`;
  return new TraceParseError({
    message:
      `${file} has more than ${spanCount} spans; holding them needs ${megabytes(bytes)}, over the span budget of ${megabytes(budget)} ` +
      "(raise spanBudgetBytes, or CG_TRACE_SPAN_BUDGET_MB for cg-trace, on a machine with the memory to spare)",
    code: "memory_budget",
    stage: "stream",
    line,
    index,
    file,
  });
}
