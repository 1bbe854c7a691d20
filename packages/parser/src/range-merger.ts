// The main thread's side of a parallel read: takes the ranges of one file in file order, either
// decoded elsewhere (a worker's column batch) or as bytes to read here, and runs everything
// order-dependent through the same line processor and summary fold as a sequential read: the
// ordering rules (meta first, duplicate and unknown span ids), line and record numbers, strict
// errors and lenient diagnostics, the memory reorder window. So the result is the sequential one.
import { ColumnBatch } from "@cg/schema/core";
import type { LineProcessor } from "./line-processor.js";
import { ByteLineSplitter, type LinePiece } from "./line-splitter.js";
import { createColumnProcessor } from "./process-chunks.js";
import type { DecodedRange } from "./range-decoder.js";
import type { StreamSummaryOptions } from "./summarize-stream.js";
import { SummaryFold } from "./summary-fold.js";
import { type StreamSummary, TraceSummarizer } from "./trace-summarizer.js";

export class RangeMerger {
  readonly #processor: LineProcessor;
  readonly #summarizer: TraceSummarizer;
  readonly #fold: SummaryFold;
  /** The batch the ranges read here are decoded into. */
  readonly #batch = new ColumnBatch();

  /** The ranges of `file`, summarized with `options` as `summarizeStream` would. */
  constructor(file: string, options: StreamSummaryOptions) {
    this.#processor = createColumnProcessor(file, options, this.#batch);
    // The processor interns every started span id: the summary shares that table.
    this.#summarizer = new TraceSummarizer(
      { ...options, file: this.#processor.file },
      this.#processor.spanIds,
    );
    this.#fold = new SummaryFold(this.#summarizer, options);
  }

  /** The name used in messages. */
  get file(): string {
    return this.#processor.file;
  }

  /** After the last range: the final ordering checks, then the summary. */
  finish(): StreamSummary {
    this.#processor.finish();
    return this.#summarizer.finish(this.#processor.lineCount);
  }

  /** Folds in the next range, decoded elsewhere (not `failed`). */
  addDecoded(range: DecodedRange): void {
    if (range.failed || range.batch === undefined)
      throw new Error("a failed range must be read again with addBytes");
    const processor = this.#processor;
    const batch = ColumnBatch.fromMessage(range.batch);
    // Line numbers within the range count from 1, record indexes from 0.
    const lineBase = processor.lineCount;
    const recordBase = processor.eventIndexCount;
    for (let at = 0; at < batch.size; at++) {
      batch.lines[at] = (batch.lines[at] as number) + lineBase;
      batch.indexes[at] = (batch.indexes[at] as number) + recordBase;
    }
    processor.acceptBatch(batch, (from, to) => this.#fold.add(batch, from, to));
    processor.skip(range.lines, range.records);
  }

  /**
   * Reads the next range here: its bytes in order (a chunk may be reused after it was taken).
   * `last`: the range ends the file. Read in the same chunks as a sequential read, so even a line
   * over the length limit is reported alike.
   */
  addBytes(chunks: Iterable<Uint8Array>, last: boolean): void {
    const processor = this.#processor;
    const splitter = new ByteLineSplitter(processor.maxLineLength);
    const pieces: LinePiece[] = [];
    try {
      for (const chunk of chunks) {
        splitter.push(chunk, pieces);
        processor.processPieces(pieces);
        pieces.length = 0;
        this.#flush();
      }
      if (last) {
        splitter.end(pieces);
        processor.processPieces(pieces);
      }
    } catch (error) {
      // The events before a defect are folded first, as a sequential read folds them.
      try {
        this.#flush();
      } catch {
        // The defect is the error to report.
      }
      throw error;
    }
    this.#flush();
  }

  #flush(): void {
    try {
      this.#fold.add(this.#batch);
    } finally {
      this.#batch.clear();
    }
  }
}
