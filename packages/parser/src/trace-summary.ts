// What a trace summary holds (spec §10), for a document and a stream alike.
import type { U64 } from "@cg/schema/core";

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
