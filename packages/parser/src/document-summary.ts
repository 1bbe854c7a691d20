// The streaming summary of a document: its events folded through the one summarizer, so a
// document's health, summary and memory figures are those of its stream.
import type { TraceEvent } from "@cg/schema";
import { foldDocument } from "./fold-document.js";
import type { TraceDocument } from "./trace-document.js";
import {
  createTraceSummarizer,
  type StreamSummary,
  type TraceSummarizerOptions,
} from "./trace-summarizer.js";

/**
 * Summarizes a document as its stream; `onEvent` sees every event after the summary took it (for
 * figures of the caller's own from the same pass).
 */
export function documentSummary(
  document: TraceDocument,
  options: Pick<TraceSummarizerOptions, "compat" | "rankLimit">,
  onEvent?: (event: TraceEvent) => void,
): StreamSummary {
  const summarizer = createTraceSummarizer({
    ...(options.compat === undefined ? {} : { compat: options.compat }),
    ...(options.rankLimit === undefined ? {} : { rankLimit: options.rankLimit }),
    // The document holds every memory event already: a window as large restores their order exactly.
    reorderWindow: Math.max(1, document.memory.length),
    // The budget bounds what a stream adds up; a document's spans are in memory already.
    spanBudgetBytes: Number.POSITIVE_INFINITY,
  });
  foldDocument(document, (event) => {
    summarizer.add(event);
    onEvent?.(event);
  });
  return summarizer.finish();
}
