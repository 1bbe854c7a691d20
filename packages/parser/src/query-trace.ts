// Queries matching the reference CLI's `query --kind` (spec §16), computed from a document.
import { analyzeMemory, type MemoryAnalysis } from "@cg/memory";
import {
  compareU64,
  type EdgeEvent,
  type GradientEvent,
  type GradientState,
  type U64,
  u64ToBigInt,
} from "@cg/schema";
import { documentSummary } from "./document-summary.js";
import { type OpCost, opCost } from "./op-cost.js";
import type { SpanCost, SpanCostOptions } from "./span-cost.js";
import { spanCosts } from "./span-costs.js";
import type { ResolvedTensorEvent, SpanRecord, TraceDocument } from "./trace-document.js";

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

export type { OpCost } from "./op-cost.js";

export interface EfficiencyEntry extends OpCost {
  /** `storage_bytes ÷ self_ns`; only ops with both above 0 are listed. */
  bytes_per_ns: number;
}

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

export const EFFICIENCY_NOTE =
  "bytes per nanosecond of self time: output storage bytes ÷ op duration; only ops with both above 0";

function opCosts(document: TraceDocument): OpCost[] {
  const perSpan = new Map<string, number>();
  return document.ops.map((op) => {
    const ordinal = perSpan.get(op.span_id) ?? 0;
    perSpan.set(op.span_id, ordinal + 1);
    return opCost(op, ordinal);
  });
}

/** Descending by a U64 key; ties by id in code point order for a stable, reproducible ranking. */
function rankBy<T extends { id: string }>(items: T[], key: (item: T) => U64, limit: number): T[] {
  return items
    .sort(
      (left, right) =>
        compareU64(key(right), key(left)) || (left.id < right.id ? -1 : left.id > right.id ? 1 : 0),
    )
    .slice(0, limit);
}

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
        const total = documentSummary(document, spanCostOptions(options)).summary.total_ns;
        const spans = spanCosts(document, spanCostOptions(options)).filter(
          (span) => span.in_measured_subtree,
        );
        return {
          ...base,
          kind: "slowest",
          total_ns: total,
          total_ms: toMilliseconds(total),
          slowest_spans: rankBy(spans, (span) => span.self_ns, limit),
          slowest_ops: rankBy(opCosts(document), (op) => op.self_ns, limit),
        };
      }
      case "heaviest": {
        const memory = analyzeMemory(
          { memory: document.memory, spans: document.spans, device_memory: document.device_memory },
          { timeline: false },
        );
        const spans = spanCosts(document, spanCostOptions(options)).filter(
          (span) => span.in_measured_subtree,
        );
        return {
          ...base,
          kind: "heaviest",
          peak_bytes: memory.peak_bytes,
          heaviest_spans: rankBy(spans, (span) => span.op_bytes, limit),
          heaviest_ops: rankBy(opCosts(document), (op) => op.storage_bytes, limit),
        };
      }
      case "efficiency": {
        const ops = opCosts(document)
          .filter((op) => u64ToBigInt(op.storage_bytes) > 0n && u64ToBigInt(op.self_ns) > 0n)
          .map((op) => ({ ...op, bytes_per_ns: Number(op.storage_bytes) / Number(op.self_ns) }))
          .sort((left, right) => right.bytes_per_ns - left.bytes_per_ns || (left.id < right.id ? -1 : 1))
          .slice(0, limit);
        return {
          ...base,
          kind: "efficiency",
          note: EFFICIENCY_NOTE,
          ops,
        };
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
