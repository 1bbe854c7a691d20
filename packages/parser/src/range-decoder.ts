// Decodes one byte range of a trace file (whole lines, cut at line feeds) on its own, as a worker
// thread does, into compact results the main thread merges in file order (see range-merger.ts).
// Only decoding happens here: the ordering rules (meta first, duplicate and unknown span ids) need
// the whole file before the range, so they are left to the merge. A range with any line that does
// not decode is only marked `failed`: the merge reads it again itself, where line numbers and the
// strict/lenient rules are known, so errors and diagnostics come out exactly as a sequential read's.
import type { MemoryEvent, TraceEvent } from "@cg/schema";
import { LineProcessor, type ReadOptions } from "./line-processor.js";
import { ByteLineSplitter, type LinePiece } from "./line-splitter.js";
import { StructureChecker } from "./structure-checker.js";

export interface RangeDecodeOptions {
  maxLineLength?: number;
  /**
   * Ops and tensors are needed only as references to their span (a validation): they are sent as
   * runs of one span id and a count instead of whole events.
   */
  referencesOnly: boolean;
}

/** Memory events as columns (strings by index into `DecodedRange.strings`; -1: absent). */
export interface MemoryColumns {
  records: Int32Array;
  lines: Int32Array;
  timestamps: Float64Array;
  bytes: Float64Array;
  /** 1: alloc, 0: free. */
  allocs: Uint8Array;
  tensorIds: string[];
  spanIds: Int32Array;
  opNames: Int32Array;
  devices: Int32Array;
  dtypes: Int32Array;
  categories: Int32Array;
  /** Event i's shape is shapeDims[shapeStarts[i] .. shapeStarts[i + 1]). */
  shapeStarts: Int32Array;
  shapeDims: Float64Array;
}

/** Runs of consecutive op (or tensor) events naming the same span: span id index and count. */
export interface SpanReferenceRuns {
  spanIds: Int32Array;
  counts: Int32Array;
}

export interface DecodedRange {
  /** Physical lines and records (non-blank lines) of the range. */
  lines: number;
  records: number;
  /** Some line did not decode: the merge reads the range again itself. Nothing else is set. */
  failed: boolean;
  /** Events passed whole, in file order, with their line and record index within the range. */
  events: TraceEvent[];
  eventLines: Int32Array;
  eventRecords: Int32Array;
  memory: MemoryColumns;
  ops: SpanReferenceRuns;
  tensors: SpanReferenceRuns;
  strings: string[];
}

/** Takes every event: the ordering rules are applied where the ranges are merged. */
class NoOrderingRules extends StructureChecker {
  override check(): undefined {
    return undefined;
  }

  override checkMeta(): undefined {
    return undefined;
  }
}

const NO_RECORDS = new Int32Array(0);

/** Grows plain arrays of one range and hands them out as transferable columns. */
class RangeCollector {
  readonly events: TraceEvent[] = [];
  readonly eventLines: number[] = [];
  readonly eventRecords: number[] = [];
  readonly strings: string[] = [];
  readonly #stringIndex = new Map<string, number>();
  readonly #memory = {
    records: [] as number[],
    lines: [] as number[],
    timestamps: [] as number[],
    bytes: [] as number[],
    allocs: [] as number[],
    tensorIds: [] as string[],
    spanIds: [] as number[],
    opNames: [] as number[],
    devices: [] as number[],
    dtypes: [] as number[],
    categories: [] as number[],
    shapeStarts: [0] as number[],
    shapeDims: [] as number[],
  };
  readonly #ops = { spanIds: [] as number[], counts: [] as number[] };
  readonly #tensors = { spanIds: [] as number[], counts: [] as number[] };

  string(value: string): number {
    let index = this.#stringIndex.get(value);
    if (index === undefined) {
      index = this.strings.length;
      this.strings.push(value);
      this.#stringIndex.set(value, index);
    }
    return index;
  }

  event(event: TraceEvent, line: number, record: number): void {
    this.events.push(event);
    this.eventLines.push(line);
    this.eventRecords.push(record);
  }

  /** False when a value does not fit the columns (an integer above 2^53): then pass it whole. */
  memory(event: MemoryEvent, line: number, record: number): boolean {
    const { timestamp_ns: timestamp, bytes, shape } = event;
    if (typeof timestamp !== "number" || typeof bytes !== "number") return false;
    for (const dim of shape) if (typeof dim !== "number") return false;
    const memory = this.#memory;
    memory.records.push(record);
    memory.lines.push(line);
    memory.timestamps.push(timestamp);
    memory.bytes.push(bytes);
    memory.allocs.push(event.action === "alloc" ? 1 : 0);
    memory.tensorIds.push(event.tensor_id);
    memory.spanIds.push(this.string(event.span_id));
    memory.opNames.push(event.op_name === undefined ? -1 : this.string(event.op_name));
    memory.devices.push(this.string(event.device));
    memory.dtypes.push(this.string(event.dtype));
    memory.categories.push(this.string(event.category));
    for (const dim of shape) memory.shapeDims.push(dim as number);
    memory.shapeStarts.push(memory.shapeDims.length);
    return true;
  }

  reference(runs: { spanIds: number[]; counts: number[] }, spanId: string): void {
    const index = this.string(spanId);
    const last = runs.spanIds.length - 1;
    if (last >= 0 && runs.spanIds[last] === index) (runs.counts[last] as number)++;
    else {
      runs.spanIds.push(index);
      runs.counts.push(1);
    }
  }

  op(spanId: string): void {
    this.reference(this.#ops, spanId);
  }

  tensor(spanId: string): void {
    this.reference(this.#tensors, spanId);
  }

  result(lines: number, records: number): DecodedRange {
    const memory = this.#memory;
    return {
      lines,
      records,
      failed: false,
      events: this.events,
      eventLines: Int32Array.from(this.eventLines),
      eventRecords: Int32Array.from(this.eventRecords),
      memory: {
        records: Int32Array.from(memory.records),
        lines: Int32Array.from(memory.lines),
        timestamps: Float64Array.from(memory.timestamps),
        bytes: Float64Array.from(memory.bytes),
        allocs: Uint8Array.from(memory.allocs),
        tensorIds: memory.tensorIds,
        spanIds: Int32Array.from(memory.spanIds),
        opNames: Int32Array.from(memory.opNames),
        devices: Int32Array.from(memory.devices),
        dtypes: Int32Array.from(memory.dtypes),
        categories: Int32Array.from(memory.categories),
        shapeStarts: Int32Array.from(memory.shapeStarts),
        shapeDims: Float64Array.from(memory.shapeDims),
      },
      ops: { spanIds: Int32Array.from(this.#ops.spanIds), counts: Int32Array.from(this.#ops.counts) },
      tensors: {
        spanIds: Int32Array.from(this.#tensors.spanIds),
        counts: Int32Array.from(this.#tensors.counts),
      },
      strings: this.strings,
    };
  }
}

/** The result for a range that the merge must read again itself. */
export function failedRange(): DecodedRange {
  const empty = { spanIds: NO_RECORDS, counts: NO_RECORDS };
  return {
    lines: 0,
    records: 0,
    failed: true,
    events: [],
    eventLines: NO_RECORDS,
    eventRecords: NO_RECORDS,
    memory: new RangeCollector().result(0, 0).memory,
    ops: empty,
    tensors: empty,
    strings: [],
  };
}

/**
 * Incremental decoder of one range: `push` its bytes in order (a chunk may be reused after the
 * call), then `finish`. `last`: the range ends the file (its final line may lack a line feed).
 */
export class RangeDecoder {
  readonly #collector = new RangeCollector();
  readonly #splitter: ByteLineSplitter;
  readonly #processor: LineProcessor;
  readonly #pieces: LinePiece[] = [];
  #failed = false;

  constructor(options: RangeDecodeOptions) {
    const collector = this.#collector;
    const referencesOnly = options.referencesOnly;
    // Lenient, so a bad line is recorded rather than thrown; any diagnostic fails the range.
    const readOptions: ReadOptions = { mode: "lenient" };
    if (options.maxLineLength !== undefined) readOptions.maxLineLength = options.maxLineLength;
    // Line and record numbers are counted from 1 and 0 within the range.
    this.#processor = new LineProcessor(
      "<range>",
      readOptions,
      (event, line, record) => {
        if (referencesOnly && event.kind === "op") collector.op(event.span_id);
        else if (referencesOnly && event.kind === "tensor") collector.tensor(event.span_id);
        else if (event.kind !== "memory" || !collector.memory(event, line, record)) {
          collector.event(event, line, record);
        }
      },
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
    return this.#collector.result(processor.lineCount, processor.eventIndexCount);
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
  const { memory } = range;
  const arrays = [
    range.eventLines,
    range.eventRecords,
    memory.records,
    memory.lines,
    memory.timestamps,
    memory.bytes,
    memory.allocs,
    memory.spanIds,
    memory.opNames,
    memory.devices,
    memory.dtypes,
    memory.categories,
    memory.shapeStarts,
    memory.shapeDims,
    range.ops.spanIds,
    range.ops.counts,
    range.tensors.spanIds,
    range.tensors.counts,
  ];
  const buffers = new Set<ArrayBuffer>();
  for (const array of arrays) if (array.byteLength > 0) buffers.add(array.buffer as ArrayBuffer);
  return [...buffers];
}
