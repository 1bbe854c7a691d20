import { resolveStorageBytes } from "@cg/memory";
import {
  type ColumnBatch,
  EVENT_KINDS,
  EXACT_U64,
  type FieldColumn,
  type KindColumns,
  MEMORY_ACTIONS,
  MEMORY_CATEGORIES,
  type MemoryCategory,
  type MetaEvent,
  type TraceEvent,
  type U64,
  u64ToBigInt,
} from "@cg/schema/core";
import { MemoryCounters } from "./memory-counters.js";
import { MemoryEventSorter } from "./memory-event-sorter.js";
import { microsecondsText } from "./microseconds.js";
import { OpLanes } from "./op-lanes.js";
import { SpanLanes } from "./span-lanes.js";

export interface PerfettoConvertOptions {
  /** Memory events held in memory before sorted runs spill to a temporary directory. */
  memorySortChunkSize?: number;
  /** Written into `otherData.converter`. */
  converter?: string;
}

export interface PerfettoConvertStats {
  spans: number;
  ops: number;
  memoryEvents: number;
  deviceMemorySamples: number;
  spanTracks: number;
  opTracks: number;
  /** Sorted runs of memory events that went through temporary files (0: sorted in memory). */
  spilledMemoryRuns: number;
}

/** All slices and counters live in one process; thread ids separate span lanes from op lanes. */
const PROCESS_ID = 1;
const FIRST_SPAN_THREAD = 1;
const FIRST_OP_THREAD = 1001;
/** Name of the instant that carries a slice's per-call ids. */
const IDS_EVENT_NAME = "ids";

const quote = (text: string): string => JSON.stringify(text);
/** Counter track names kept quoted (device × category, plus device-memory tracks). */
const MAX_QUOTED_COUNTER_NAMES = 4096;

function runMetadata(meta: MetaEvent, converter: string | undefined): Record<string, string> {
  const other: Record<string, string> = {
    schema: meta.schema,
    run_id: meta.run_id,
    correlation_id: meta.correlation_id,
    entrypoint: meta.entrypoint,
    phase: meta.phase,
    timestamp: meta.timestamp,
    capture_step: String(meta.capture_step),
    warmup_steps: String(meta.warmup_steps),
    device: meta.device,
    measured_region_device_synchronized: String(meta.measured_region_device_synchronized),
    timing_mode: meta.timing_mode,
  };
  if (meta.candle_version !== undefined) other.candle_version = meta.candle_version;
  for (const [key, value] of Object.entries(meta.tags)) other[`tag.${key}`] = value;
  if (converter !== undefined) other.converter = converter;
  return other;
}

/** The span fields a slice is drawn with when its span ends. */
interface SpanStart {
  name: string;
  parentId?: string;
  spanKind: string;
  measured: boolean;
  step?: string;
}

/**
 * The converter's state and its output, fed event by event (`add`) or, for the bulk kinds, by
 * values read straight from column batches (`op`, `memory`, `skip`): one implementation of every
 * slice, instant and counter whatever holds the events.
 */
class PerfettoTraceBuilder {
  readonly stats: PerfettoConvertStats = {
    spans: 0,
    ops: 0,
    memoryEvents: 0,
    deviceMemorySamples: 0,
    spanTracks: 0,
    opTracks: 0,
    spilledMemoryRuns: 0,
  };
  readonly #write: (text: string) => void;
  readonly #converter: string | undefined;
  readonly #spanLanes: SpanLanes;
  readonly #opLanes: OpLanes;
  readonly #sorter: MemoryEventSorter;
  readonly #starts = new Map<string, SpanStart>();
  readonly #quotedCounterNames = new Map<string, string>();
  #meta: MetaEvent | undefined;
  #first = true;
  #events = 0;

  constructor(write: (text: string) => void, options: PerfettoConvertOptions) {
    this.#write = write;
    this.#converter = options.converter;
    this.#spanLanes = new SpanLanes((lane) =>
      this.#threadName(FIRST_SPAN_THREAD + lane, lane === 0 ? "spans" : `spans (lane ${lane + 1})`, lane),
    );
    this.#opLanes = new OpLanes((lane) =>
      this.#threadName(FIRST_OP_THREAD + lane, lane === 0 ? "ops" : `ops (lane ${lane + 1})`, 1000 + lane),
    );
    this.#sorter = new MemoryEventSorter(options.memorySortChunkSize);
  }

  /** One event of any kind, in file order. */
  add(event: TraceEvent): void {
    this.#count(event.kind);
    switch (event.kind) {
      case "meta":
        this.#addMeta(event);
        break;
      case "span_start": {
        const start: SpanStart = { name: event.name, spanKind: event.span_kind, measured: event.measured };
        if (event.parent_id !== undefined) start.parentId = event.parent_id;
        if (event.step !== undefined) start.step = event.step;
        this.#starts.set(event.id, start);
        this.#spanLanes.start(event.id, event.parent_id, u64ToBigInt(event.start_ns));
        break;
      }
      case "span_end":
        this.#emitSpan(event.id, u64ToBigInt(event.duration_ns), true);
        break;
      case "op":
        this.#op(
          event.span_id,
          event.op_name,
          event.inputs.length > 0 ? event.inputs.join(",") : undefined,
          event.output,
          `[${event.shape.join(",")}]`,
          event.dtype,
          event.device,
          u64ToBigInt(event.timestamp_ns),
          u64ToBigInt(event.duration_ns),
          resolveStorageBytes(event.storage_bytes, event.shape, event.dtype),
          event.input_storage_bytes,
        );
        break;
      case "memory":
        this.#memory(
          u64ToBigInt(event.timestamp_ns),
          event.action === "alloc",
          event.tensor_id,
          event.device,
          u64ToBigInt(event.bytes),
          event.category,
        );
        break;
      case "device_memory": {
        const timestamp = microsecondsText(event.timestamp_ns);
        const counter = (name: string, value: U64): void =>
          this.#emitCounter(`device_memory ${event.device} ${name}`, timestamp, String(value));
        counter("used", event.used_bytes);
        counter("free", event.free_bytes);
        if (event.reserved_bytes !== undefined) counter("reserved", event.reserved_bytes);
        this.stats.deviceMemorySamples += 1;
        break;
      }
      default:
        // tensor, gradient and edge events carry no time; they are not drawn.
        break;
    }
  }

  /** The events of a column batch: ops and memory from their columns, kinds not drawn skipped, the rest as events. */
  addBatch(batch: ColumnBatch): void {
    const ops = batch.columns[OP] as KindColumns;
    const memory = batch.columns[MEMORY] as KindColumns;
    const op = (key: string) => ops.byKey.get(key) as FieldColumn;
    const spanIds = op("span_id");
    const opNames = op("op_name");
    const inputs = op("inputs");
    const outputs = op("output");
    const shapes = op("shape");
    const dtypes = op("dtype");
    const devices = op("device");
    const durations = op("duration_ns");
    const timestamps = op("timestamp_ns");
    const storage = op("storage_bytes");
    const inputStorage = op("input_storage_bytes");
    const field = (key: string) => memory.byKey.get(key) as FieldColumn;
    const memoryTimestamps = field("timestamp_ns");
    const tensorIds = field("tensor_id");
    const memoryDevices = field("device");
    const bytes = field("bytes");
    const actions = field("action");
    const categories = field("category");
    const strings = batch.strings;
    for (let at = 0; at < batch.size; at++) {
      const code = batch.kinds[at] as number;
      const row = batch.rows[at] as number;
      if (code === OP) {
        this.#count("op");
        const dtype = strings[dtypes.values[row] as number] as string;
        const stored = batch.u64(storage, row);
        this.#op(
          strings[spanIds.values[row] as number] as string,
          strings[opNames.values[row] as number] as string,
          stringsText(strings, inputs, row),
          batch.string(outputs, row),
          shapeText(shapes, row),
          dtype,
          strings[devices.values[row] as number] as string,
          u64ToBigInt(batch.u64(timestamps, row) as U64),
          u64ToBigInt(batch.u64(durations, row) as U64),
          stored ?? resolveStorageBytes(undefined, batch.value(shapes, row) as U64[], dtype),
          batch.u64(inputStorage, row) as U64,
        );
      } else if (code === MEMORY) {
        this.#count("memory");
        this.#memory(
          u64ToBigInt(batch.u64(memoryTimestamps, row) as U64),
          actions.values[row] === ALLOC,
          strings[tensorIds.values[row] as number] as string,
          strings[memoryDevices.values[row] as number] as string,
          u64ToBigInt(batch.u64(bytes, row) as U64),
          MEMORY_CATEGORIES[categories.values[row] as number] as MemoryCategory,
        );
      } else if (NOT_DRAWN[code] === true) {
        this.#count(EVENT_KINDS[code] as string);
      } else {
        this.add(batch.event(at));
      }
    }
  }

  /** One counter track sample (`ts` already in microseconds). */
  #emitCounter(name: string, timestamp: string, bytes: string): void {
    this.#emit(
      `{"name":${this.#quotedCounterName(name)},"ph":"C","ts":${timestamp},"pid":${PROCESS_ID},"args":{"bytes":${bytes}}}`,
    );
  }

  /** A counter track's name as a JSON string: tracks are few and each is written once per sample. */
  #quotedCounterName(name: string): string {
    let quoted = this.#quotedCounterNames.get(name);
    if (quoted === undefined) {
      quoted = quote(name);
      // A trace naming a great many devices must not grow this without bound.
      if (this.#quotedCounterNames.size < MAX_QUOTED_COUNTER_NAMES)
        this.#quotedCounterNames.set(name, quoted);
    }
    return quoted;
  }

  /** Draws what is left (open spans, the memory counters) and closes the JSON. */
  async finish(): Promise<PerfettoConvertStats> {
    if (this.#meta === undefined) throw new Error("the trace has no meta event");
    // Spans never closed are drawn with zero duration and marked `closed: false`.
    for (const id of this.#spanLanes.openSpanIds().reverse()) this.#emitSpan(id, 0n, false);
    const counters = new MemoryCounters();
    let merged = 0;
    for (const record of this.#sorter.sorted()) {
      // The merge is synchronous work over every memory event; let signals (Ctrl-C) through.
      merged += 1;
      if ((merged & 0xffff) === 0) await new Promise<void>((done) => setImmediate(done));
      // The samples of one event share its timestamp.
      const timestamp = microsecondsText(record.timestamp);
      for (const sample of counters.apply(record)) {
        this.#emitCounter(sample.name, timestamp, String(sample.value));
      }
    }
    this.stats.spilledMemoryRuns = this.#sorter.spilledRuns;
    this.stats.spanTracks = this.#spanLanes.laneCount;
    this.stats.opTracks = this.#opLanes.laneCount;
    this.#write("\n]}\n");
    return this.stats;
  }

  /** Removes the memory sort's spilled runs. */
  dispose(): void {
    this.#sorter.dispose();
  }

  #count(kind: string): void {
    if (this.#events === 0 && kind !== "meta") throw new Error(`the first event must be meta, found ${kind}`);
    this.#events += 1;
  }

  #emit(json: string): void {
    this.#write(this.#first ? `\n${json}` : `,\n${json}`);
    this.#first = false;
  }

  // Speedscope keys a frame on its name plus all of its args, so a slice's args hold only facts
  // shared by every call (kind, shape, dtype, device, bytes) and calls of one op group into one
  // frame. What is unique to one call (span, tensor and parent ids) goes on a thread-scoped instant
  // at the slice's start: Perfetto nests it under the slice and shows its args; speedscope reads
  // only B, E and X events.
  #emitIds(category: string, ts: string, thread: number, ids: string[]): void {
    this.#emit(
      `{"name":"${IDS_EVENT_NAME}","cat":${category},"ph":"i","s":"t","ts":${ts},"pid":${PROCESS_ID},"tid":${thread},"args":{${ids.join(",")}}}`,
    );
  }

  #threadName(thread: number, name: string, sortIndex: number): void {
    this.#emit(
      `{"name":"thread_name","ph":"M","pid":${PROCESS_ID},"tid":${thread},"args":{"name":${quote(name)}}}`,
    );
    this.#emit(
      `{"name":"thread_sort_index","ph":"M","pid":${PROCESS_ID},"tid":${thread},"args":{"sort_index":${sortIndex}}}`,
    );
  }

  #addMeta(event: MetaEvent): void {
    this.#meta = event;
    const other = Object.entries(runMetadata(event, this.#converter))
      .map(([key, value]) => `${quote(key)}:${quote(value)}`)
      .join(",");
    this.#write(`{"displayTimeUnit":"ns","otherData":{${other}},"traceEvents":[`);
    const processName = `${event.entrypoint} (${event.run_id})`;
    this.#emit(`{"name":"process_name","ph":"M","pid":${PROCESS_ID},"args":{"name":${quote(processName)}}}`);
  }

  #emitSpan(id: string, duration: bigint, closed: boolean): void {
    const start = this.#starts.get(id);
    const placed = this.#spanLanes.end(id, duration);
    if (start === undefined || placed === undefined) return;
    this.#starts.delete(id);
    const args = [`"span_kind":${quote(start.spanKind)}`, `"measured":${start.measured}`];
    if (start.step !== undefined) args.push(`"step":${quote(start.step)}`);
    if (!closed) args.push(`"closed":false`);
    const ids = [`"id":${quote(id)}`];
    if (start.parentId !== undefined) ids.push(`"parent_id":${quote(start.parentId)}`);
    const category = quote(start.step ?? start.spanKind);
    const ts = microsecondsText(placed.start);
    const thread = FIRST_SPAN_THREAD + placed.lane;
    this.#emit(
      `{"name":${quote(start.name)},"cat":${category},"ph":"X","ts":${ts},"dur":${microsecondsText(placed.end - placed.start)},"pid":${PROCESS_ID},"tid":${thread},"args":{${args.join(",")}}}`,
    );
    this.#emitIds(category, ts, thread, ids);
    this.stats.spans += 1;
  }

  /** An op slice; `inputs` are the input ids joined by commas (undefined: none), `shape` the dimensions as `[a,b]`. */
  #op(
    spanId: string,
    opName: string,
    inputs: string | undefined,
    output: string | undefined,
    shape: string,
    dtype: string,
    device: string,
    start: bigint,
    duration: bigint,
    storage: U64,
    inputStorage: U64,
  ): void {
    const lane = this.#opLanes.place(start, start + duration);
    const args = [
      `"shape":${quote(shape)}`,
      `"dtype":${quote(dtype)}`,
      `"device":${quote(device)}`,
      `"storage_bytes":${String(storage)}`,
      `"input_storage_bytes":${String(inputStorage)}`,
    ];
    const ids = [`"span_id":${quote(spanId)}`];
    if (output !== undefined) ids.push(`"output":${quote(output)}`);
    if (inputs !== undefined) ids.push(`"inputs":${quote(inputs)}`);
    const ts = microsecondsText(start);
    const thread = FIRST_OP_THREAD + lane;
    this.#emit(
      `{"name":${quote(opName)},"cat":"op","ph":"X","ts":${ts},"dur":${microsecondsText(duration)},"pid":${PROCESS_ID},"tid":${thread},"args":{${args.join(",")}}}`,
    );
    this.#emitIds('"op"', ts, thread, ids);
    this.stats.ops += 1;
  }

  #memory(
    timestamp: bigint,
    alloc: boolean,
    tensorId: string,
    device: string,
    bytes: bigint,
    category: MemoryCategory,
  ): void {
    this.#sorter.add({
      timestamp,
      action: alloc ? 0 : 1,
      tensorId,
      device,
      bytes,
      category,
      sequence: this.stats.memoryEvents,
    });
    this.stats.memoryEvents += 1;
  }
}

const OP = EVENT_KINDS.indexOf("op");
/** Per kind code: kinds that carry no time and are not drawn (counted, never made objects). */
const NOT_DRAWN = EVENT_KINDS.map((kind) => kind === "tensor" || kind === "gradient" || kind === "edge");
const MEMORY = EVENT_KINDS.indexOf("memory");
const ALLOC = MEMORY_ACTIONS.indexOf("alloc");
/** A strings column's row joined by commas, as `inputs.join(",")` of the event; undefined when empty. */
function stringsText(strings: readonly string[], column: FieldColumn, row: number): string | undefined {
  const first = column.offsets[row] as number;
  const end = column.offsets[row + 1] as number;
  if (first === end) return undefined;
  let text = strings[column.flat[first] as number] as string;
  for (let at = first + 1; at < end; at++) text += `,${strings[column.flat[at] as number]}`;
  return text;
}

/** A shape column's row as `[a,b]`, as the event's `[${shape.join(",")}]`. */
function shapeText(column: FieldColumn, row: number): string {
  const first = column.offsets[row] as number;
  let text = "[";
  for (let at = first; at < (column.offsets[row + 1] as number); at++) {
    const size = column.flat[at] as number;
    text += `${at === first ? "" : ","}${size === EXACT_U64 ? String(column.exact.get(at)) : size}`;
  }
  return `${text}]`;
}

/**
 * Streams a trace into Chrome trace-event JSON (the object form with `traceEvents`), which
 * ui.perfetto.dev and chrome://tracing load. Timestamps are microseconds since the capture start
 * with the nanosecond digits kept as a fraction; spans are `X` slices that nest per track; ops sit
 * on their own tracks; each slice is followed by an `ids` instant with its per-call ids (so
 * speedscope groups the calls of one op while Perfetto still shows the ids); logical memory per
 * device and category and device memory used/free/reserved are `C` counters with one value each.
 * Memory use is bounded by the open spans, the live allocations and the memory-event sort chunk,
 * not by the trace size.
 */
export async function convertToPerfetto(
  events: AsyncIterable<TraceEvent> | Iterable<TraceEvent>,
  write: (text: string) => void,
  options: PerfettoConvertOptions = {},
): Promise<PerfettoConvertStats> {
  const builder = new PerfettoTraceBuilder(write, options);
  try {
    for await (const event of events) builder.add(event);
    return await builder.finish();
  } finally {
    builder.dispose();
  }
}

/**
 * `convertToPerfetto` of column batches (`readColumnBatches`): the same output, with ops and memory
 * events read from their columns and tensors skipped, no event object made for them.
 */
export async function convertBatchesToPerfetto(
  batches: AsyncIterable<ColumnBatch> | Iterable<ColumnBatch>,
  write: (text: string) => void,
  options: PerfettoConvertOptions = {},
): Promise<PerfettoConvertStats> {
  const builder = new PerfettoTraceBuilder(write, options);
  try {
    for await (const batch of batches) builder.addBatch(batch);
    return await builder.finish();
  } finally {
    builder.dispose();
  }
}
