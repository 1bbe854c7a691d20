// `summarizeStream`: reads a trace once through the validating line processor and folds every
// event into a `TraceSummarizer` (the one implementation of the streamed figures).
import type { TraceEvent } from "@cg/schema";
import type { LineProcessor, ReadOptions } from "./line-processor.js";
import { createProcessor, processChunks } from "./process-chunks.js";
import type { SpanTable } from "./span-table.js";
import type { TraceSource } from "./trace-source.js";
import { type StreamSummary, TraceSummarizer, type TraceSummarizerOptions } from "./trace-summarizer.js";

export type { StreamRankings, StreamSummary } from "./trace-summarizer.js";

export interface StreamSummaryOptions extends ReadOptions, Omit<TraceSummarizerOptions, "file"> {
  /** Sees every accepted event, in file order, after the summary took it (for figures of its own). */
  onEvent?: (event: TraceEvent) => void;
}

/** A line processor that folds every event it accepts into a summarizer (then `onEvent`). */
export function summarizingProcessor(
  source: TraceSource,
  options: StreamSummaryOptions,
): { processor: LineProcessor; summarizer: TraceSummarizer } {
  const onEvent = options.onEvent;
  let summarizer: TraceSummarizer | undefined;
  const processor = createProcessor(source, options, (event, line, index) => {
    (summarizer as TraceSummarizer).add(event, line, index);
    onEvent?.(event);
  });
  // The processor already interns every started span id: the summary shares that table.
  summarizer = new TraceSummarizer({ ...options, file: processor.file }, processor.spanIds);
  return { processor, summarizer };
}

/** Streams a trace once and returns its summary, health and memory figures (spec §10–§12). */
export async function summarizeStream(
  source: TraceSource,
  options: StreamSummaryOptions = {},
): Promise<StreamSummary> {
  return summarizeSharingSpans(source, options);
}

/**
 * `summarizeStream` that hands the summary's span table to `withSpans` before the first event, for
 * per-span figures of the caller's own without a second table (each span is in it before `onEvent`
 * sees its start or end). Internal: the table is not part of the public API.
 */
export async function summarizeSharingSpans(
  source: TraceSource,
  options: StreamSummaryOptions,
  withSpans?: (spans: SpanTable) => void,
): Promise<StreamSummary> {
  const { processor, summarizer } = summarizingProcessor(source, options);
  withSpans?.(summarizer.spans);
  for await (const _ of processChunks(source, processor)) {
    // Events were folded into the summary as each chunk was processed.
  }
  return summarizer.finish(processor.lineCount);
}
