import type { TraceEvent } from "@cg/schema";
import { type EventSink, LineProcessor, type ReadOptions } from "./line-processor.js";
import { ByteLineSplitter, type LinePiece, TextLineSplitter } from "./line-splitter.js";
import { TraceParseError } from "./trace-parse-error.js";
import {
  type ChunkIterable,
  isTextSource,
  sourceChunks,
  sourceLabel,
  type TraceSource,
} from "./trace-source.js";

/** One validated event with where it came from. */
export interface TraceEventRecord {
  event: TraceEvent;
  /** 1-based physical line. */
  line: number;
  /** 0-based index among non-blank lines. */
  index: number;
}

function wrapReadFailure(error: unknown, file: string): unknown {
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

/** Feeds in-memory text or bytes through the processor synchronously. */
export function processSync(source: string | Uint8Array, processor: LineProcessor): void {
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
  processor.processPieces(pieces);
  processor.finish();
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

export function createProcessor(source: TraceSource, options: ReadOptions, sink: EventSink): LineProcessor {
  return new LineProcessor(options.file ?? sourceLabel(source), options, sink);
}

/**
 * Events decoded ahead of the consumer. A whole chunk's worth would keep thousands of events alive
 * across young-generation collections; a few hundred keep the garbage collector's work small.
 */
const EVENTS_PER_STEP = 256;

/**
 * The iterator behind `readTraceEvents`. Events are decoded a chunk at a time into a buffer and then
 * handed out one `next()` each from that buffer: an already resolved promise, no async-generator
 * machinery per event (a `yield*` of each chunk's array cost several promise ticks per event and
 * made the validating read about twice as slow as the decoding itself). Events before a defect are
 * delivered first; the error is thrown in their place once they are consumed.
 */
class TraceEventIterator implements AsyncGenerator<TraceEventRecord, void, undefined> {
  readonly #chunks: AsyncGenerator<void>;
  #records: (TraceEventRecord | undefined)[] = [];
  #position = 0;
  #error: { value: unknown } | undefined;
  /** The read in flight; a `next()` called before it settles waits for it (calls stay in order). */
  #reading: Promise<unknown> | undefined;
  #done = false;

  constructor(source: TraceSource, options: ReadOptions) {
    const processor = createProcessor(source, options, (event, line, index) => {
      this.#records.push({ event, line, index });
    });
    this.#chunks = processChunks(source, processor, EVENTS_PER_STEP);
  }

  next(): Promise<IteratorResult<TraceEventRecord, void>> {
    const records = this.#records;
    if (this.#position < records.length) {
      const value = records[this.#position] as TraceEventRecord;
      records[this.#position++] = undefined;
      return Promise.resolve({ value, done: false });
    }
    if (this.#reading !== undefined) return this.#reading.then(() => this.next());
    const reading = this.#refill();
    this.#reading = reading;
    const settle = () => {
      if (this.#reading === reading) this.#reading = undefined;
    };
    reading.then(settle, settle);
    return reading;
  }

  async #refill(): Promise<IteratorResult<TraceEventRecord, void>> {
    while (true) {
      this.#records = [];
      this.#position = 0;
      if (this.#error !== undefined) {
        const { value } = this.#error;
        this.#error = undefined;
        this.#done = true;
        throw value;
      }
      if (this.#done) return { value: undefined, done: true };
      try {
        const step = await this.#chunks.next();
        if (step.done) this.#done = true;
      } catch (error) {
        this.#error = { value: error };
      }
      if (this.#records.length > 0) return this.next();
    }
  }

  async return(): Promise<IteratorResult<TraceEventRecord, void>> {
    this.#finish();
    await this.#chunks.return(undefined);
    return { value: undefined, done: true };
  }

  async throw(error: unknown): Promise<IteratorResult<TraceEventRecord, void>> {
    this.#finish();
    await this.#chunks.return(undefined);
    throw error;
  }

  #finish(): void {
    this.#done = true;
    this.#error = undefined;
    this.#records = [];
    this.#position = 0;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  static {
    // `await using` support where the runtime has it, as native async generators have on newer runtimes.
    const asyncDispose = (Symbol as { asyncDispose?: symbol }).asyncDispose;
    if (typeof asyncDispose === "symbol") {
      Object.defineProperty(TraceEventIterator.prototype, asyncDispose, {
        value(this: TraceEventIterator): Promise<void> {
          return this.return().then(() => undefined);
        },
        writable: true,
        configurable: true,
      });
    }
  }
}

/**
 * Reads validated events with their physical line and event index, from a file path, `{ text }`,
 * bytes, a web `ReadableStream` or a Node readable stream. Strict by default: the first defect
 * throws a `TraceParseError` (after the events before it); the final-stage checks (missing meta,
 * schema) run after the last event.
 */
export function readTraceEvents(
  source: TraceSource,
  options: ReadOptions = {},
): AsyncGenerator<TraceEventRecord, void, undefined> {
  return new TraceEventIterator(source, options);
}
