// Queries matching the reference CLI's `query --kind` (spec §16) over a document: the rankings are
// those of its stream (its events folded through the summarizer and the efficiency ranking).
import { analyzeMemory, type MemoryAnalysis } from "@cg/memory";
import {
  type EdgeEvent,
  type GradientEvent,
  type GradientState,
  type U64,
  u64ToBigInt,
} from "@cg/schema/core";
import { documentSummary } from "./document-summary.js";
import { EFFICIENCY_NOTE, type EfficiencyEntry, EfficiencyRanking } from "./efficiency-ranking.js";
import type { OpCost } from "./op-cost.js";
import type { SpanCost, SpanCostOptions } from "./span-cost.js";
import type { ResolvedTensorEvent, SpanRecord, TraceDocument } from "./trace-document.js";
import type { StreamRankings } from "./trace-summarizer.js";

export const QUERY_KINDS = [
  "slowest",
  "heaviest",
  "efficiency",
  "memory",
  "spans",
  "tensors",
  "gradients",
] as const;
export type QueryKind = (typeof QUERY_KINDS)[number];

export type { EfficiencyEntry } from "./efficiency-ranking.js";
export type { OpCost } from "./op-cost.js";

interface QueryBase<K extends QueryKind> {
  schema: "candle-graph/trace-query/1";
  kind: K;
  entrypoint: string;
}

export interface SlowestResult extends QueryBase<"slowest"> {
  total_ns: U64;
  total_ms: number;
  /** Spans of the measured subtree by self time, descending. */
  slowest_spans: SpanCost[];
  slowest_ops: OpCost[];
}

export interface HeaviestResult extends QueryBase<"heaviest"> {
  peak_bytes: U64;
  /** Spans of the measured subtree by their ops' bytes, descending. */
  heaviest_spans: SpanCost[];
  heaviest_ops: OpCost[];
}

export interface EfficiencyResult extends QueryBase<"efficiency"> {
  note: string;
  ops: EfficiencyEntry[];
}

export interface MemoryResult extends QueryBase<"memory"> {
  summary: Omit<MemoryAnalysis, "timeline" | "peak_breakdown" | "by_device">;
  timeline: MemoryAnalysis["timeline"];
  peak_breakdown: MemoryAnalysis["peak_breakdown"];
  by_device: MemoryAnalysis["by_device"];
}

export interface SpansResult extends QueryBase<"spans"> {
  spans: SpanRecord[];
  edges: EdgeEvent[];
}

export interface TensorsResult extends QueryBase<"tensors"> {
  tensors: ResolvedTensorEvent[];
}

export interface GradientsResult extends QueryBase<"gradients"> {
  gradients: GradientEvent[];
  /** Facts per state. */
  counts: Record<GradientState, number>;
  /** Gradients whose state is not `present`. */
  attention_count: number;
}

export interface QueryResults {
  slowest: SlowestResult;
  heaviest: HeaviestResult;
  efficiency: EfficiencyResult;
  memory: MemoryResult;
  spans: SpansResult;
  tensors: TensorsResult;
  gradients: GradientsResult;
}
export type QueryResult = QueryResults[QueryKind];

export interface QueryOptions extends SpanCostOptions {
  /** Maximum entries of ranked lists (default 50, as the reference). */
  limit?: number;
}

const DEFAULT_LIMIT = 50;

function toMilliseconds(value: U64): number {
  return Number(u64ToBigInt(value)) / 1e6;
}

function spanCostOptions(options: QueryOptions): SpanCostOptions {
  return options.compat === undefined ? {} : { compat: options.compat };
}

/** Runs one query kind over a document. */
export function queryTrace<K extends QueryKind>(
  document: TraceDocument,
  kind: K,
  options: QueryOptions = {},
): QueryResults[K] {
  const limit = options.limit ?? DEFAULT_LIMIT;
  const base = { schema: "candle-graph/trace-query/1" as const, entrypoint: document.run.entrypoint };
  const result = ((): QueryResult => {
    switch (kind) {
      case "slowest": {
        const stream = documentSummary(document, { ...spanCostOptions(options), rankLimit: limit });
        const rankings = stream.rankings as StreamRankings;
        const total = stream.summary.total_ns;
        return {
          ...base,
          kind: "slowest",
          total_ns: total,
          total_ms: toMilliseconds(total),
          slowest_spans: rankings.slowest_spans,
          slowest_ops: rankings.slowest_ops,
        };
      }
      case "heaviest": {
        const stream = documentSummary(document, { ...spanCostOptions(options), rankLimit: limit });
        const rankings = stream.rankings as StreamRankings;
        return {
          ...base,
          kind: "heaviest",
          peak_bytes: stream.memory.peak_bytes,
          heaviest_spans: rankings.heaviest_spans,
          heaviest_ops: rankings.heaviest_ops,
        };
      }
      case "efficiency": {
        const ranking = new EfficiencyRanking(limit);
        for (const op of document.ops) ranking.add({ ...op, kind: "op" });
        return { ...base, kind: "efficiency", note: EFFICIENCY_NOTE, ops: ranking.values() };
      }
      case "memory": {
        const { timeline, peak_breakdown, by_device, ...summary } = analyzeMemory({
          memory: document.memory,
          spans: document.spans,
          device_memory: document.device_memory,
        });
        return { ...base, kind: "memory", summary, timeline, peak_breakdown, by_device };
      }
      case "spans":
        return { ...base, kind: "spans", spans: document.spans, edges: document.edges };
      case "tensors":
        return { ...base, kind: "tensors", tensors: document.tensors };
      case "gradients": {
        const counts: Record<GradientState, number> = { present: 0, missing: 0, zero: 0, non_finite: 0 };
        for (const gradient of document.gradients) counts[gradient.state]++;
        return {
          ...base,
          kind: "gradients",
          gradients: document.gradients,
          counts,
          attention_count: document.gradients.length - counts.present,
        };
      }
      default:
        throw new RangeError(
          `unknown query kind ${JSON.stringify(kind)}; expected one of ${QUERY_KINDS.join(", ")}`,
        );
    }
  })();
  return result as QueryResults[K];
}
