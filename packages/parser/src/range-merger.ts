// The main thread's side of a parallel read: takes the ranges of one file in file order, either
// decoded elsewhere (a worker's compact results) or as bytes to read here, and runs everything
// order-dependent through the same line processor and summarizer as a sequential read: the ordering
// rules (meta first, duplicate and unknown span ids), line and record numbers, strict errors and
// lenient diagnostics, the memory reorder window. So the result is the sequential one.
import { EVENT_LAYOUTS, type MemoryEvent, type TraceEvent } from "@cg/schema";
import type { LineProcessor } from "./line-processor.js";
import { ByteLineSplitter, type LinePiece } from "./line-splitter.js";
import type { DecodedRange, MemoryColumns } from "./range-decoder.js";
import { type StreamSummaryOptions, summarizingProcessor } from "./summarize-stream.js";
import type { StreamSummary, TraceSummarizer } from "./trace-summarizer.js";

type MemoryCategory = MemoryEvent["category"];

/**
 * The keys of each kind whose value is a string map: the decoder builds those without a prototype
 * (so no key is special), which a structured clone from the worker does not keep.
 */
const STRING_MAP_KEYS = new Map<string, string[]>();
for (const [kind, layout] of Object.entries(EVENT_LAYOUTS)) {
  const keys = layout.fields.filter((field) => field.type === "string_map").map((field) => field.key);
  if (keys.length > 0) STRING_MAP_KEYS.set(kind, keys);
}

/** An event as decoded, after a structured clone. */
function restored(event: TraceEvent): TraceEvent {
  const keys = STRING_MAP_KEYS.get(event.kind);
  if (keys !== undefined) {
    const record = event as unknown as Record<string, object | undefined>;
    for (const key of keys) if (record[key] !== undefined) Object.setPrototypeOf(record[key], null);
  }
  return event;
}

function memoryEvent(memory: MemoryColumns, strings: readonly string[], row: number): MemoryEvent {
  const shapeStart = memory.shapeStarts[row] as number;
  const shapeEnd = memory.shapeStarts[row + 1] as number;
  const shape: number[] = [];
  for (let dim = shapeStart; dim < shapeEnd; dim++) shape.push(memory.shapeDims[dim] as number);
  const event: MemoryEvent = {
    kind: "memory",
    timestamp_ns: memory.timestamps[row] as number,
    tensor_id: memory.tensorIds[row] as string,
    span_id: strings[memory.spanIds[row] as number] as string,
    device: strings[memory.devices[row] as number] as string,
    bytes: memory.bytes[row] as number,
    action: memory.allocs[row] === 1 ? "alloc" : "free",
    shape,
    dtype: strings[memory.dtypes[row] as number] as string,
    category: strings[memory.categories[row] as number] as MemoryCategory,
  };
  const opName = memory.opNames[row] as number;
  if (opName >= 0) event.op_name = strings[opName] as string;
  return event;
}

export class RangeMerger {
  readonly #processor: LineProcessor;
  readonly #summarizer: TraceSummarizer;
  /** Ops and tensors may come as span references only (see RangeDecodeOptions). */
  readonly referencesOnly: boolean;

  /** The ranges of `file`, summarized with `options` as `summarizeStream` would. */
  constructor(file: string, options: StreamSummaryOptions) {
    const { processor, summarizer } = summarizingProcessor(file, options);
    this.#processor = processor;
    this.#summarizer = summarizer;
    // Whole ops are needed for rankings and by a caller that sees every event.
    this.referencesOnly = options.rankLimit === undefined && options.onEvent === undefined;
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
    if (range.failed) throw new Error("a failed range must be read again with addBytes");
    const processor = this.#processor;
    // Line numbers within the range count from 1, record indexes from 0.
    const lineBase = processor.lineCount;
    const recordBase = processor.eventIndexCount;
    const { events, eventLines, eventRecords, memory, strings } = range;
    const memoryCount = memory.records.length;
    let next = 0;
    let nextMemory = 0;
    // Whole events and memory columns are merged back into file order.
    while (next < events.length || nextMemory < memoryCount) {
      const eventRecord = next < events.length ? (eventRecords[next] as number) : Number.POSITIVE_INFINITY;
      const memoryRecord =
        nextMemory < memoryCount ? (memory.records[nextMemory] as number) : Number.POSITIVE_INFINITY;
      if (eventRecord < memoryRecord) {
        processor.accept(
          restored(events[next] as TraceEvent),
          lineBase + (eventLines[next] as number),
          recordBase + eventRecord,
        );
        next++;
      } else {
        const event = memoryEvent(memory, strings, nextMemory);
        processor.accept(event, lineBase + (memory.lines[nextMemory] as number), recordBase + memoryRecord);
        nextMemory++;
      }
    }
    // Op and tensor references only count and are resolved against the final span ids.
    const summarizer = this.#summarizer;
    for (let run = 0; run < range.ops.counts.length; run++) {
      summarizer.addSpanReferences(
        "op",
        strings[range.ops.spanIds[run] as number] as string,
        range.ops.counts[run] as number,
      );
    }
    for (let run = 0; run < range.tensors.counts.length; run++) {
      const spanId = strings[range.tensors.spanIds[run] as number] as string;
      summarizer.addSpanReferences("tensor", spanId, range.tensors.counts[run] as number);
    }
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
    for (const chunk of chunks) {
      splitter.push(chunk, pieces);
      processor.processPieces(pieces);
      pieces.length = 0;
    }
    if (last) {
      splitter.end(pieces);
      processor.processPieces(pieces);
    }
  }
}
