// The reference summary (spec §10) plus self time per span.
import { analyzeMemory, type MemoryAnalysis } from "@cg/memory";
import { type U64, u64ToBigInt } from "@cg/schema";
import type { SpanCostOptions } from "./span-cost.js";
import { spanCosts } from "./span-costs.js";
import { buildSpanTree } from "./span-tree.js";
import type { TraceDocument } from "./trace-document.js";

export interface SpanSelfTime {
  id: string;
  name: string;
  total_ns: U64;
  self_ns: U64;
}

export interface TraceSummary {
  op_count: number;
  /** Exact sum of `duration_ns` over measured spans (a bigint above 2^53, never rounded). */
  total_ns: U64;
  span_count: number;
  root_span_count: number;
  max_depth: number;
  alloc_count: number;
  free_count: number;
  peak_bytes: U64;
  /** Self time of every span, in span (id) order. */
  self_times: SpanSelfTime[];
}

/** Exact total of the measured spans' durations. */
export function measuredTotal(spans: TraceDocument["spans"]): U64 {
  let total = 0n;
  for (const span of spans) if (span.measured) total += u64ToBigInt(span.duration_ns);
  return total <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(total) : total;
}

export interface SummarizeOptions extends SpanCostOptions {
  /** A memory analysis already computed for this document (saves a second pass). */
  memory?: MemoryAnalysis;
}

/** Computes the summary of a document. */
export function summarize(document: TraceDocument, options: SummarizeOptions = {}): TraceSummary {
  const tree = buildSpanTree(document.spans);
  let maxDepth = 0;
  for (const depth of tree.depth.values()) if (depth > maxDepth) maxDepth = depth;
  let roots = 0;
  for (const span of document.spans) if (span.parent_id === undefined) roots++;
  let allocs = 0;
  let frees = 0;
  for (const event of document.memory) {
    if (event.action === "alloc") allocs++;
    else frees++;
  }
  const memory =
    options.memory ??
    analyzeMemory(
      { memory: document.memory, spans: document.spans, device_memory: document.device_memory },
      { timeline: false },
    );
  const costOptions: SpanCostOptions = options.compat === undefined ? {} : { compat: options.compat };
  return {
    op_count: document.ops.length,
    total_ns: measuredTotal(document.spans),
    span_count: document.spans.length,
    root_span_count: roots,
    max_depth: maxDepth,
    alloc_count: allocs,
    free_count: frees,
    peak_bytes: memory.peak_bytes,
    self_times: spanCosts(document, costOptions).map(({ id, name, total_ns, self_ns }) => ({
      id,
      name,
      total_ns,
      self_ns,
    })),
  };
}
