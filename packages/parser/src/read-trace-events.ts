import { ColumnBatch, type TraceEvent } from "@cg/schema/core";
import type { ReadOptions } from "./line-processor.js";
import { createColumnProcessor, processChunks } from "./process-chunks.js";
import type { TraceSource } from "./trace-source.js";

/** One validated event with where it came from. */
export interface TraceEventRecord {
  event: TraceEvent;
  /** 1-based physical line. */
  line: number;
  /** 0-based index among non-blank lines. */
  index: number;
}

/**
 * The most strings the event readers' batch keeps interned from one step to the next. Steps are
 * small (a few hundred events), and a dictionary restarted at each made the reader intern the same
 * span ids, names and devices again at every step (a quarter more strings per read). Kept below the
 * size at which the batch's short-string table first grows: with 16,384, its first growth rewrote
 * the table's fields and V8 abandoned its optimized interning code, which cost more than it saved.
 */
const KEPT_STRINGS = 1_024;

/**
 * Writes the events of `batch` (made from its columns, or the text tiers' own objects) with their
 * lines and indexes into `records` from index `from` on, and returns the index after the last one
 * written. The caller then empties the batch (`emptyTaken`): emptied here, after the loop, the
 * first optimized code of this function (compiled during its first loop) met the emptying before
 * it had ever run, and was thrown away.
 */
export function takeRecords(batch: ColumnBatch, records: (TraceEventRecord | undefined)[], from = 0): number {
  const lines = batch.lines;
  const indexes = batch.indexes;
  let to = from;
  for (let at = 0; at < batch.size; at++) {
    records[to++] = { event: batch.event(at), line: lines[at] as number, index: indexes[at] as number };
  }
  return to;
}

/** Empties the batch whose records were taken; its dictionary is kept up to KEPT_STRINGS strings. */
export function emptyTaken(batch: ColumnBatch): void {
  batch.clearEvents(KEPT_STRINGS);
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
  /**
   * The records of the current step, written from index 0 by takeRecords. One array for the whole
   * read, its slots cleared as they are handed out: a fresh array per step regrew its backing store
   * half a dozen times per step.
   */
  readonly #records: (TraceEventRecord | undefined)[] = [];
  /** How many records the sink wrote in the current step. */
  #filled = 0;
  /**
   * How many of `#records` are ready to hand out. `next()` tests this, never the array's length:
   * the first call of each iterator would otherwise meet an empty array of another map than the
   * filled ones, and V8 would discard `next`'s optimized code once per read.
   */
  #count = 0;
  #position = 0;
  #error: { value: unknown } | undefined;
  /** The read in flight; a `next()` called before it settles waits for it (calls stay in order). */
  #reading: Promise<unknown> | undefined;
  #done = false;

  /** The column batch the processor reads into; its events become records after each step. */
  readonly #batch = new ColumnBatch();

  constructor(source: TraceSource, options: ReadOptions) {
    const processor = createColumnProcessor(source, options, this.#batch);
    this.#chunks = processChunks(source, processor, EVENTS_PER_STEP);
  }

  next(): Promise<IteratorResult<TraceEventRecord, void>> {
    if (this.#position < this.#count) {
      const records = this.#records;
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
      this.#filled = 0;
      this.#count = 0;
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
      // The events before a defect are handed out before its error.
      this.#filled = takeRecords(this.#batch, this.#records, this.#filled);
      emptyTaken(this.#batch);
      this.#count = this.#filled;
      if (this.#count > 0) return this.next();
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
    this.#records.length = 0;
    this.#batch.clear();
    this.#filled = 0;
    this.#count = 0;
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
