// `summarizeColumns`: the streamed summary, health and memory figures of `summarizeStream` as a
// fold over column batches. The validating read decodes canonical lines straight into columns
// (read-column-batches.ts); the fold hands each event to the one summarizer (trace-summarizer.ts),
// and kinds whose figures need only their span reference (ops and tensors without rankings) are
// folded from the columns without an event object.
import {
  type ColumnBatch,
  ColumnBatch as Columns,
  canonicalColumnReader,
  EVENT_KINDS,
  type KindColumns,
  type TraceEvent,
} from "@cg/schema";
import { createProcessor, processChunks } from "./process-chunks.js";
import type { StreamSummaryOptions } from "./summarize-stream.js";
import type { TraceSource } from "./trace-source.js";
import { type StreamSummary, TraceSummarizer } from "./trace-summarizer.js";

export interface ColumnSummaryOptions extends StreamSummaryOptions {
  /** Events per batch (default 8,192). */
  batchSize?: number;
  /**
   * Sees each batch after the summary folded it (for figures of the caller's own, read from the
   * columns). The batch is reused: read it before returning.
   */
  onBatch?: (batch: ColumnBatch) => void;
}

const DEFAULT_BATCH_SIZE = 8192;
const OP = EVENT_KINDS.indexOf("op");
const TENSOR = EVENT_KINDS.indexOf("tensor");

/** Folds the events of column batches into a TraceSummarizer, in file order. */
export class SummaryFold {
  readonly #summarizer: TraceSummarizer;
  readonly #onEvent: ((event: TraceEvent) => void) | undefined;
  /** Ops and tensors are folded from their span column alone (no rankings, no per-event consumer). */
  readonly #spanOnly: boolean;

  constructor(summarizer: TraceSummarizer, options: StreamSummaryOptions) {
    this.#summarizer = summarizer;
    this.#onEvent = options.onEvent;
    this.#spanOnly = options.onEvent === undefined && options.rankLimit === undefined;
  }

  add(batch: ColumnBatch): void {
    const summarizer = this.#summarizer;
    const onEvent = this.#onEvent;
    const kinds = batch.kinds;
    const rows = batch.rows;
    const strings = batch.strings;
    const opSpans = (batch.columns[OP] as KindColumns).fields[0]?.values as Int32Array;
    const tensorSpans = (batch.columns[TENSOR] as KindColumns).fields[0]?.values as Int32Array;
    for (let at = 0; at < batch.size; at++) {
      const code = kinds[at] as number;
      if (this.#spanOnly && (code === OP || code === TENSOR)) {
        // A run of references to one span is folded at once.
        const spans = code === OP ? opSpans : tensorSpans;
        const id = spans[rows[at] as number] as number;
        let count = 1;
        while (at + 1 < batch.size && kinds[at + 1] === code && spans[rows[at + 1] as number] === id) {
          count++;
          at++;
        }
        summarizer.addSpanReferences(code === OP ? "op" : "tensor", strings[id] as string, count);
        continue;
      }
      const event = batch.event(at);
      summarizer.add(event, batch.lines[at], batch.indexes[at]);
      onEvent?.(event);
    }
  }
}

/**
 * Streams a trace once through the column reader and returns `summarizeStream`'s figures: the same
 * summary, health, memory figures, notes and errors.
 */
export async function summarizeColumns(
  source: TraceSource,
  options: ColumnSummaryOptions = {},
): Promise<StreamSummary> {
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  if (!(batchSize >= 1)) throw new RangeError(`batchSize must be at least 1, got ${batchSize}`);
  const batch = new Columns();
  const processor = createProcessor(source, options, (event, line, index) =>
    batch.appendEvent(event, line, index),
  );
  processor.intoColumns(batch, canonicalColumnReader(batch));
  // The processor interns every started span id: the summary shares that table.
  const summarizer = new TraceSummarizer({ ...options, file: processor.file }, processor.spanIds);
  const fold = new SummaryFold(summarizer, options);
  const onBatch = options.onBatch;
  const flush = () => {
    if (batch.size === 0) return;
    fold.add(batch);
    onBatch?.(batch);
    batch.clear();
  };
  try {
    for await (const _ of processChunks(source, processor, batchSize)) flush();
  } catch (error) {
    // The events before a defect are folded first, as the event path folds them before it throws.
    flush();
    throw error;
  }
  flush();
  return summarizer.finish(processor.lineCount);
}
