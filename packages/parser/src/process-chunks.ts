// Drives any trace source through a LineProcessor: in-memory text and bytes at once, files and
// streams a chunk at a time, with read failures turned into TraceParseErrors that name the file.
import type { ColumnBatch } from "@cg/schema/core";
import { LineProcessor, type ReadOptions } from "./line-processor.js";
import { ByteLineSplitter, type LinePiece, TextLineSplitter } from "./line-splitter.js";
import { TraceParseError } from "./trace-parse-error.js";
import {
  type ChunkIterable,
  isTextSource,
  sourceChunks,
  sourceLabel,
  type TraceSource,
} from "./trace-source.js";

/** A read failure as a TraceParseError naming the file; parse errors and TypeErrors pass through. */
export function wrapReadFailure(error: unknown, file: string): unknown {
  if (TraceParseError.isInstance(error) || error instanceof TypeError) return error;
  const reason = error instanceof Error ? error.message : String(error);
  return new TraceParseError({
    message: `read trace from ${file}: ${reason}`,
    code: "read_failed",
    stage: "stream",
    file,
    cause: error,
  });
}

/**
 * Feeds in-memory text or bytes through the processor synchronously, calling `step` after each
 * `eventsPerStep` events accepted into its batch, and once at the end.
 */
export function processSync(
  source: string | Uint8Array,
  processor: LineProcessor,
  eventsPerStep: number,
  step: () => void,
): void {
  const pieces: LinePiece[] = [];
  if (typeof source === "string") {
    const splitter = new TextLineSplitter(processor.maxLineLength);
    splitter.push(source, pieces);
    splitter.end(pieces);
  } else {
    const splitter = new ByteLineSplitter(processor.maxLineLength);
    splitter.push(source, pieces);
    splitter.end(pieces);
  }
  processor.enqueue(pieces);
  while (processor.drain(eventsPerStep)) step();
  processor.finish();
  step();
}

/**
 * Drives a source through the processor chunk by chunk, yielding after each chunk's events — or
 * each `eventsPerStep` of them — were delivered to the processor's sink. Stopping the iteration
 * early closes the source.
 */
export async function* processChunks(
  source: TraceSource,
  processor: LineProcessor,
  eventsPerStep = Number.POSITIVE_INFINITY,
): AsyncGenerator<void> {
  const pieces: LinePiece[] = [];
  if (isTextSource(source)) {
    // Text held in memory is framed at once but decoded a step at a time like any other source.
    const splitter = new TextLineSplitter(processor.maxLineLength);
    splitter.push(source.text, pieces);
    splitter.end(pieces);
    processor.enqueue(pieces);
    while (processor.drain(eventsPerStep)) yield;
    processor.finish();
    yield;
    return;
  }
  const bytes = new ByteLineSplitter(processor.maxLineLength);
  const text = new TextLineSplitter(processor.maxLineLength);
  let usedText = false;
  let chunks: ChunkIterable;
  try {
    chunks = sourceChunks(source);
  } catch (error) {
    throw wrapReadFailure(error, processor.file);
  }
  const iterator =
    Symbol.asyncIterator in chunks
      ? (chunks as AsyncIterable<Uint8Array | string>)[Symbol.asyncIterator]()
      : (chunks as Iterable<Uint8Array | string>)[Symbol.iterator]();
  try {
    while (true) {
      let step: IteratorResult<Uint8Array | string>;
      try {
        step = await iterator.next();
      } catch (error) {
        throw wrapReadFailure(error, processor.file);
      }
      if (step.done) break;
      const chunk = step.value;
      if (typeof chunk === "string") {
        usedText = true;
        text.push(chunk, pieces);
      } else {
        bytes.push(chunk, pieces);
      }
      if (pieces.length > 0) {
        processor.enqueue(pieces);
        pieces.length = 0;
        while (processor.drain(eventsPerStep)) yield;
        yield;
      }
    }
  } finally {
    await iterator.return?.();
  }
  (usedText ? text : bytes).end(pieces);
  processor.enqueue(pieces);
  while (processor.drain(eventsPerStep)) yield;
  processor.finish();
  yield;
}

/** A processor that reads each accepted event into `batch`. */
export function createColumnProcessor(
  source: TraceSource,
  options: ReadOptions,
  batch: ColumnBatch,
): LineProcessor {
  return new LineProcessor(options.file ?? sourceLabel(source), options, batch);
}
