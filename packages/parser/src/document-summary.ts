// The streaming summary of a document: its events folded through the one summarizer, so a
// document's health, summary and memory figures are those of its stream.
import type { TraceEvent } from "@cg/schema/core";
import { foldDocument } from "./fold-document.js";
import { IdTable } from "./id-table.js";
import type { SpanTable } from "./span-table.js";
import type { TraceDocument } from "./trace-document.js";
import { type StreamSummary, TraceSummarizer, type TraceSummarizerOptions } from "./trace-summarizer.js";

/**
 * Summarizes a document as its stream. `onEvent` sees every event after the summary took it, and
 * `withSpans` gets the summary's span table before the first event (for per-span figures of the
 * caller's own from the same pass, as `summarizeSharingSpans` gives a stream's).
 */
export function documentSummary(
  document: TraceDocument,
  options: Pick<TraceSummarizerOptions, "compat" | "rankLimit" | "spanCosts">,
  onEvent?: (event: TraceEvent) => void,
  withSpans?: (spans: SpanTable) => void,
): StreamSummary {
  const summarizer = new TraceSummarizer(
    {
      ...(options.compat === undefined ? {} : { compat: options.compat }),
      ...(options.rankLimit === undefined ? {} : { rankLimit: options.rankLimit }),
      ...(options.spanCosts === undefined ? {} : { spanCosts: options.spanCosts }),
      // The document holds every memory event already: a window as large restores their order exactly.
      reorderWindow: Math.max(1, document.memory.length),
      // The budget bounds what a stream adds up; a document's spans are in memory already.
      spanBudgetBytes: Number.POSITIVE_INFINITY,
    },
    new IdTable(),
  );
  withSpans?.(summarizer.spans);
  foldDocument(document, (event) => {
    summarizer.add(event);
    onEvent?.(event);
  });
  return summarizer.finish();
}
