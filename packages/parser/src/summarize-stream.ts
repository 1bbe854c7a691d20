// Summary, health and memory peak in one streaming pass, without building a document. Kept: one
// compact record per span (health and depth need the whole span tree), the live allocations, a
// bounded reorder window of memory events, and the span references still unresolved. Ops, tensors,
// memory events, gradients and edges are counted and dropped.
import { type MemoryAnalysis, MemoryTimeline } from "@cg/memory";
import type { RunMetadata, TraceEvent } from "@cg/schema";
import {
  AllocationPairing,
  type HealthIssue,
  type HealthOptions,
  type HealthReport,
  healthReport,
  pushPresenceWarnings,
  spanStructureIssues,
  unknownEdgeSpanIssue,
  unknownSpanIssue,
} from "./health.js";
import type { ReadOptions } from "./line-processor.js";
import { createProcessor, processChunks } from "./read-trace-events.js";
import { MemoryReorderWindow } from "./reorder-window.js";
import { buildSpanTree } from "./span-tree.js";
import { measuredTotal, type TraceSummary } from "./summarize.js";
import { compareCodePointsSpans, type SpanRecord, spanRecordFromStart } from "./trace-document.js";
import type { TraceSource } from "./trace-source.js";

export interface StreamSummaryOptions extends ReadOptions, HealthOptions {
  /**
   * Memory events held back to restore timestamp order (default 16,384). Writer output is sorted
   * or nearly so; as long as no memory event arrives after more than this many memory events with a
   * later timestamp (ties may come in any order), the memory figures equal those of `analyzeMemory`
   * on the whole document and `exact` stays true. Each held event costs about 100 bytes.
   */
  reorderWindow?: number;
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
  /** Physical lines and events read. */
  lines: number;
  events: number;
}

const DEFAULT_REORDER_WINDOW = 16_384;

/** Streams a trace once and returns its summary, health and memory figures (spec §10–§12). */
export async function summarizeStream(
  source: TraceSource,
  options: StreamSummaryOptions = {},
): Promise<StreamSummary> {
  const spans = new Map<string, SpanRecord>();
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

  const timeline = new MemoryTimeline({ timeline: false });
  const pairingIssues: HealthIssue[] = [];
  const pairing = new AllocationPairing();
  const reorderWindow = options.reorderWindow ?? DEFAULT_REORDER_WINDOW;
  const window = new MemoryReorderWindow(
    reorderWindow,
    (event) => timeline.push(event),
    (device, tensorId, action) => pairing.add(device, tensorId, action, pairingIssues),
  );

  const sink = (event: TraceEvent): void => {
    events++;
    switch (event.kind) {
      case "op":
        ops++;
        if (!spans.has(event.span_id)) pendingOps.push(event.span_id);
        return;
      case "tensor":
        tensors++;
        if (!spans.has(event.span_id)) pendingTensors.push(event.span_id);
        return;
      case "memory": {
        memoryEvents++;
        if (event.action === "alloc") allocs++;
        else frees++;
        const span = spans.get(event.span_id);
        if (span === undefined) pendingMemory.push(event.span_id);
        window.push(event, span?.id);
        return;
      }
      case "span_start":
        spans.set(event.id, spanRecordFromStart(event));
        timeline.addSpan(event);
        return;
      case "span_end": {
        const span = spans.get(event.id);
        if (span !== undefined) {
          span.closed = true;
          span.duration_ns = event.duration_ns;
        }
        return;
      }
      case "device_memory":
        deviceSamples++;
        timeline.pushDeviceSample(event);
        return;
      case "gradient":
        gradients++;
        return;
      case "edge":
        edges++;
        if (!spans.has(event.from_span) || !spans.has(event.to_span)) {
          pendingEdges.push({ from: event.from_span, to: event.to_span });
        }
        return;
      case "meta":
        meta ??= event;
        return;
    }
  };

  const processor = createProcessor(source, options, sink);
  for await (const _ of processChunks(source, processor)) {
    // Events were folded into the state as each chunk was processed.
  }
  window.drain();
  if (meta === undefined) throw new Error("summarizeStream: no meta event"); // the processor rejects this first

  const spanList = [...spans.values()].sort(compareCodePointsSpans);
  const tree = buildSpanTree(spanList);
  const issues: HealthIssue[] = [];
  const counts = spanStructureIssues(spanList, options, issues, tree);
  for (const spanId of pendingOps) {
    if (!spans.has(spanId)) issues.push(unknownSpanIssue("operation", spanId));
  }
  for (const spanId of pendingTensors) {
    if (!spans.has(spanId)) issues.push(unknownSpanIssue("tensor", spanId));
  }
  for (const spanId of pendingMemory) {
    if (!spans.has(spanId)) issues.push(unknownSpanIssue("memory", spanId));
  }
  for (const edge of pendingEdges) {
    if (!spans.has(edge.from) || !spans.has(edge.to)) issues.push(unknownEdgeSpanIssue(edge.from, edge.to));
  }
  issues.push(...pairingIssues);
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
  const health = healthReport(issues, spanList.length, counts, {
    operations: ops,
    tensors,
    memory_events: memoryEvents,
    device_memory_samples: deviceSamples,
    gradients,
    edges,
  });

  const memory = timeline.result();
  let maxDepth = 0;
  for (const depth of tree.depth.values()) if (depth > maxDepth) maxDepth = depth;
  const exact = window.exact;
  const notes: string[] = [];
  if (!exact) {
    notes.push(
      `memory events arrived more than ${reorderWindow} events out of timestamp order; memory figures and allocation pairing may differ from a whole-document analysis (raise reorderWindow or use parseTrace)`,
    );
  }
  const { kind: _kind, schema, ...run } = meta;
  return {
    schema,
    run,
    summary: {
      op_count: ops,
      total_ns: measuredTotal(spanList),
      span_count: spanList.length,
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
