// The streamed summary, health and memory figures of a trace, read once: the validating read
// decodes canonical lines straight into column batches (read-column-batches.ts), and each batch is
// folded into the one summarizer (summary-fold.ts, trace-summarizer.ts). `summarizeStream` and
// `summarizeColumns` are the same read; the second also hands each batch to its caller.
import { ColumnBatch, type EventKind, type TraceEvent } from "@cg/schema/core";
import type { ReadOptions } from "./line-processor.js";
import { createColumnProcessor, processChunks } from "./process-chunks.js";
import type { SpanTable } from "./span-table.js";
import { SummaryFold } from "./summary-fold.js";
import type { TraceSource } from "./trace-source.js";
import {
  type StreamCheck,
  type StreamSummary,
  TraceSummarizer,
  type TraceSummarizerOptions,
} from "./trace-summarizer.js";

export type { StreamCheck, StreamRankings, StreamSummary } from "./trace-summarizer.js";

export interface StreamSummaryOptions extends ReadOptions, Omit<TraceSummarizerOptions, "file"> {
  /** Sees every accepted event, in file order, after the summary took it (for figures of its own). */
  onEvent?: (event: TraceEvent) => void;
}

export interface ColumnSummaryOptions extends StreamSummaryOptions {
  /** Events per batch (default 8,192). */
  batchSize?: number;
  /**
   * The kinds `onEvent` is given (default: all). Events of other kinds are folded from the columns
   * without an event object.
   */
  eventKinds?: readonly EventKind[];
  /**
   * Sees each batch after the summary folded it (for figures of the caller's own, read from the
   * columns). The batch is reused: read it before returning. A promise returned holds the reading
   * until it settles (a consumer's back-pressure); an error thrown stops the read and closes the
   * source.
   */
  onBatch?: (batch: ColumnBatch) => Promise<void> | undefined | void;
}

const DEFAULT_BATCH_SIZE = 8192;

/** Streams a trace once and returns its summary, health and memory figures (spec §10–§12). */
export function summarizeStream(
  source: TraceSource,
  options: StreamSummaryOptions = {},
): Promise<StreamSummary> {
  return summarizeSharingSpans(source, options);
}

/**
 * `summarizeStream` with the column batches handed to `onBatch` and `onEvent` limited to
 * `eventKinds`: the same summary, health, memory figures, notes and errors.
 */
export function summarizeColumns(
  source: TraceSource,
  options: ColumnSummaryOptions = {},
): Promise<StreamSummary> {
  return summarizeSharingSpans(source, options);
}

/**
 * The one streamed read behind `summarizeStream` and `summarizeColumns`, which hands the summary's
 * span table to `withSpans` before the first event, for per-span figures of the caller's own
 * without a second table (each span is in it before `onEvent` sees its start or end). Internal:
 * the table is not part of the public API.
 */
export async function summarizeSharingSpans(
  source: TraceSource,
  options: ColumnSummaryOptions,
  withSpans?: (spans: SpanTable) => void,
): Promise<StreamSummary> {
  const { summarizer, lines } = await foldColumns(source, options, true, withSpans);
  return summarizer.finish(lines);
}

/**
 * A trace's health in one streamed read, as `summarizeColumns` checks it, without the summary's
 * figures (no memory timeline, no rankings): what `cg-trace validate` reports.
 */
export async function checkColumns(
  source: TraceSource,
  options: Omit<ColumnSummaryOptions, "rankLimit" | "spanCosts" | "onMemoryPoint"> = {},
): Promise<StreamCheck> {
  const { summarizer, lines } = await foldColumns(source, options, false);
  return summarizer.check(lines);
}

/** Reads `source` into a summarizer made for the figures or for a check only. */
async function foldColumns(
  source: TraceSource,
  options: ColumnSummaryOptions,
  figures: boolean,
  withSpans?: (spans: SpanTable) => void,
): Promise<{ summarizer: TraceSummarizer; lines: number }> {
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  if (!(batchSize >= 1)) throw new RangeError(`batchSize must be at least 1, got ${batchSize}`);
  const batch = new ColumnBatch();
  const processor = createColumnProcessor(source, options, batch);
  // The processor interns every started span id: the summary shares that table.
  const summarizer = new TraceSummarizer({ ...options, file: processor.file }, processor.spanIds, figures);
  withSpans?.(summarizer.spans);
  const fold = new SummaryFold(summarizer, options);
  const onBatch = options.onBatch;
  const flush = (): Promise<void> | undefined => {
    if (batch.size === 0) return undefined;
    try {
      fold.add(batch);
      return onBatch?.(batch) ?? undefined;
    } finally {
      batch.clear();
    }
  };
  const steps = processChunks(source, processor, batchSize);
  let done = false;
  try {
    while (true) {
      let step: IteratorResult<void>;
      try {
        step = await steps.next();
      } catch (error) {
        done = true;
        // The events before a defect are folded first, as they are before a defect in any read.
        await flush()?.catch(() => undefined);
        throw error;
      }
      if (step.done) {
        done = true;
        break;
      }
      const pause = flush();
      if (pause !== undefined) await pause;
    }
  } finally {
    // Stopped by the caller (`onEvent` or `onBatch` threw): the source is closed.
    if (!done) await steps.return(undefined);
  }
  return { summarizer, lines: processor.lineCount };
}
