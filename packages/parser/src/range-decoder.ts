// Decodes one byte range of a trace file (whole lines, cut at line feeds) on its own, as a worker
// thread does, into a column batch the main thread folds in file order (see range-merger.ts). Only
// decoding happens here: the ordering rules (meta first, duplicate and unknown span ids) need the
// whole file before the range, so they are left to the merge. A range with any line that does not
// decode is only marked `failed`: the merge reads it again itself, where line numbers and the
// strict/lenient rules are known, so errors and diagnostics come out exactly as a sequential read's.
import { ColumnBatch, type ColumnBatchMessage } from "@cg/schema/core";
import { LineProcessor } from "./line-processor.js";
import { ByteLineSplitter, type LinePiece } from "./line-splitter.js";
import { StructureChecker } from "./structure-checker.js";

export interface RangeDecodeOptions {
  maxLineLength?: number;
}

export interface DecodedRange {
  /** Physical lines and records (non-blank lines) of the range. */
  lines: number;
  records: number;
  /** Some line did not decode: the merge reads the range again itself. Nothing else is set. */
  failed: boolean;
  /** Every event of the range in file order, lines counted from 1 and records from 0 within it. */
  batch: ColumnBatchMessage | undefined;
}

/** Takes every event: the ordering rules are applied where the ranges are merged. */
class NoOrderingRules extends StructureChecker {
  override check(): undefined {
    return undefined;
  }

  override checkMeta(): undefined {
    return undefined;
  }

  override checkSpanStart(): undefined {
    return undefined;
  }

  override checkSpanEnd(): undefined {
    return undefined;
  }
}

/** The buffers of each decoded range's batch, for its transfer. */
const transfers = new WeakMap<DecodedRange, ArrayBufferLike[]>();

/** The result for a range that the merge must read again itself. */
export function failedRange(): DecodedRange {
  return { lines: 0, records: 0, failed: true, batch: undefined };
}

/**
 * Incremental decoder of one range: `push` its bytes in order (a chunk may be reused after the
 * call), then `finish`. `last`: the range ends the file (its final line may lack a line feed).
 */
export class RangeDecoder {
  readonly #batch = new ColumnBatch();
  readonly #splitter: ByteLineSplitter;
  readonly #processor: LineProcessor;
  readonly #pieces: LinePiece[] = [];
  #failed = false;

  constructor(options: RangeDecodeOptions) {
    // Lenient, so a bad line is recorded rather than thrown; any diagnostic fails the range. Line
    // and record numbers are counted from 1 and 0 within the range.
    this.#processor = new LineProcessor(
      "<range>",
      {
        mode: "lenient",
        ...(options.maxLineLength === undefined ? {} : { maxLineLength: options.maxLineLength }),
      },
      this.#batch,
      new NoOrderingRules("<range>"),
    );
    this.#splitter = new ByteLineSplitter(this.#processor.maxLineLength);
  }

  push(chunk: Uint8Array): void {
    if (this.#failed) return;
    this.#splitter.push(chunk, this.#pieces);
    this.#drain();
  }

  finish(last: boolean): DecodedRange {
    if (last && !this.#failed) {
      this.#splitter.end(this.#pieces);
      this.#drain();
    }
    const processor = this.#processor;
    if (this.#failed) return failedRange();
    const { message, transfer } = this.#batch.toMessage();
    const range = {
      lines: processor.lineCount,
      records: processor.eventIndexCount,
      failed: false,
      batch: message,
    };
    transfers.set(range, transfer);
    return range;
  }

  #drain(): void {
    const pieces = this.#pieces;
    if (pieces.length === 0) return;
    this.#processor.processPieces(pieces);
    pieces.length = 0;
    if (this.#processor.diagnostics.length > 0) this.#failed = true;
  }
}

/** Decodes a whole range held in memory (tests; the worker streams it through `RangeDecoder`). */
export function decodeRange(bytes: Uint8Array, last: boolean, options: RangeDecodeOptions): DecodedRange {
  const decoder = new RangeDecoder(options);
  decoder.push(bytes);
  return decoder.finish(last);
}

/** The transferable buffers of a result (posted without copying). */
export function rangeTransferList(range: DecodedRange): ArrayBuffer[] {
  return [...new Set(transfers.get(range) ?? [])] as ArrayBuffer[];
}
