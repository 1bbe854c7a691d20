// The reference summary (spec §10) plus self time per span.
import type { MemoryAnalysis } from "@cg/memory";
import { documentSummary } from "./document-summary.js";
import type { SpanCostOptions } from "./span-cost.js";
import { spanCosts } from "./span-costs.js";
import type { TraceDocument } from "./trace-document.js";
import type { TraceSummary } from "./trace-summary.js";

export type { SpanSelfTime, TraceSummary } from "./trace-summary.js";

export interface SummarizeOptions extends SpanCostOptions {
  /** A memory analysis already computed for this document: the summary takes its peak. */
  memory?: MemoryAnalysis;
}

/** Computes the summary of a document (that of its stream, plus every span's self time). */
export function summarize(document: TraceDocument, options: SummarizeOptions = {}): TraceSummary {
  const costOptions: SpanCostOptions = options.compat === undefined ? {} : { compat: options.compat };
  const { summary } = documentSummary(document, costOptions);
  return {
    ...summary,
    peak_bytes: options.memory?.peak_bytes ?? summary.peak_bytes,
    self_times: spanCosts(document, costOptions).map(({ id, name, total_ns, self_ns }) => ({
      id,
      name,
      total_ns,
      self_ns,
    })),
  };
}
