import { resolveStorageBytes } from "@cg/memory";
import { type MetaEvent, type TraceEvent, u64ToBigInt } from "@cg/schema/core";
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
  const stats: PerfettoConvertStats = {
    spans: 0,
    ops: 0,
    memoryEvents: 0,
    deviceMemorySamples: 0,
    spanTracks: 0,
    opTracks: 0,
    spilledMemoryRuns: 0,
  };
  let first = true;
  const emit = (json: string): void => {
    write(first ? `\n${json}` : `,\n${json}`);
    first = false;
  };
  // Speedscope keys a frame on its name plus all of its args, so a slice's args hold only facts
  // shared by every call (kind, shape, dtype, device, bytes) and calls of one op group into one
  // frame. What is unique to one call (span, tensor and parent ids) goes on a thread-scoped instant
  // at the slice's start: Perfetto nests it under the slice and shows its args; speedscope reads
  // only B, E and X events.
  const emitIds = (category: string, ts: string, thread: number, ids: string[]): void => {
    emit(
      `{"name":"${IDS_EVENT_NAME}","cat":${category},"ph":"i","s":"t","ts":${ts},"pid":${PROCESS_ID},"tid":${thread},"args":{${ids.join(",")}}}`,
    );
  };
  const threadName = (thread: number, name: string, sortIndex: number): void => {
    emit(
      `{"name":"thread_name","ph":"M","pid":${PROCESS_ID},"tid":${thread},"args":{"name":${quote(name)}}}`,
    );
    emit(
      `{"name":"thread_sort_index","ph":"M","pid":${PROCESS_ID},"tid":${thread},"args":{"sort_index":${sortIndex}}}`,
    );
  };
  const spanLanes = new SpanLanes((lane) =>
    threadName(FIRST_SPAN_THREAD + lane, lane === 0 ? "spans" : `spans (lane ${lane + 1})`, lane),
  );
  const opLanes = new OpLanes((lane) =>
    threadName(FIRST_OP_THREAD + lane, lane === 0 ? "ops" : `ops (lane ${lane + 1})`, 1000 + lane),
  );
  const sorter = new MemoryEventSorter(options.memorySortChunkSize);
  const starts = new Map<
    string,
    { name: string; parentId?: string; spanKind: string; measured: boolean; step?: string }
  >();
  let meta: MetaEvent | undefined;

  const emitSpan = (id: string, duration: bigint, closed: boolean): void => {
    const start = starts.get(id);
    const placed = spanLanes.end(id, duration);
    if (start === undefined || placed === undefined) return;
    starts.delete(id);
    const args = [`"span_kind":${quote(start.spanKind)}`, `"measured":${start.measured}`];
    if (start.step !== undefined) args.push(`"step":${quote(start.step)}`);
    if (!closed) args.push(`"closed":false`);
    const ids = [`"id":${quote(id)}`];
    if (start.parentId !== undefined) ids.push(`"parent_id":${quote(start.parentId)}`);
    const category = quote(start.step ?? start.spanKind);
    const ts = microsecondsText(placed.start);
    const thread = FIRST_SPAN_THREAD + placed.lane;
    emit(
      `{"name":${quote(start.name)},"cat":${category},"ph":"X","ts":${ts},"dur":${microsecondsText(placed.end - placed.start)},"pid":${PROCESS_ID},"tid":${thread},"args":{${args.join(",")}}}`,
    );
    emitIds(category, ts, thread, ids);
    stats.spans += 1;
  };

  try {
    let index = 0;
    for await (const event of events) {
      if (index === 0 && event.kind !== "meta") {
        throw new Error(`the first event must be meta, found ${event.kind}`);
      }
      index += 1;
      switch (event.kind) {
        case "meta": {
          meta = event;
          const other = Object.entries(runMetadata(event, options.converter))
            .map(([key, value]) => `${quote(key)}:${quote(value)}`)
            .join(",");
          write(`{"displayTimeUnit":"ns","otherData":{${other}},"traceEvents":[`);
          const processName = `${event.entrypoint} (${event.run_id})`;
          emit(`{"name":"process_name","ph":"M","pid":${PROCESS_ID},"args":{"name":${quote(processName)}}}`);
          break;
        }
        case "span_start": {
          const start: {
            name: string;
            parentId?: string;
            spanKind: string;
            measured: boolean;
            step?: string;
          } = {
            name: event.name,
            spanKind: event.span_kind,
            measured: event.measured,
          };
          if (event.parent_id !== undefined) start.parentId = event.parent_id;
          if (event.step !== undefined) start.step = event.step;
          starts.set(event.id, start);
          spanLanes.start(event.id, event.parent_id, u64ToBigInt(event.start_ns));
          break;
        }
        case "span_end":
          emitSpan(event.id, u64ToBigInt(event.duration_ns), true);
          break;
        case "op": {
          const start = u64ToBigInt(event.timestamp_ns);
          const duration = u64ToBigInt(event.duration_ns);
          const lane = opLanes.place(start, start + duration);
          const storage = resolveStorageBytes(event.storage_bytes, event.shape, event.dtype);
          const args = [
            `"shape":${quote(`[${event.shape.join(",")}]`)}`,
            `"dtype":${quote(event.dtype)}`,
            `"device":${quote(event.device)}`,
            `"storage_bytes":${String(storage)}`,
            `"input_storage_bytes":${String(event.input_storage_bytes)}`,
          ];
          const ids = [`"span_id":${quote(event.span_id)}`];
          if (event.output !== undefined) ids.push(`"output":${quote(event.output)}`);
          if (event.inputs.length > 0) ids.push(`"inputs":${quote(event.inputs.join(","))}`);
          const ts = microsecondsText(start);
          const thread = FIRST_OP_THREAD + lane;
          emit(
            `{"name":${quote(event.op_name)},"cat":"op","ph":"X","ts":${ts},"dur":${microsecondsText(duration)},"pid":${PROCESS_ID},"tid":${thread},"args":{${args.join(",")}}}`,
          );
          emitIds('"op"', ts, thread, ids);
          stats.ops += 1;
          break;
        }
        case "memory":
          sorter.add({
            timestamp: u64ToBigInt(event.timestamp_ns),
            action: event.action === "alloc" ? 0 : 1,
            tensorId: event.tensor_id,
            device: event.device,
            bytes: u64ToBigInt(event.bytes),
            category: event.category,
            sequence: stats.memoryEvents,
          });
          stats.memoryEvents += 1;
          break;
        case "device_memory": {
          const timestamp = microsecondsText(event.timestamp_ns);
          const counter = (name: string, value: string): void =>
            emit(
              `{"name":${quote(`device_memory ${event.device} ${name}`)},"ph":"C","ts":${timestamp},"pid":${PROCESS_ID},"args":{"bytes":${value}}}`,
            );
          counter("used", String(event.used_bytes));
          counter("free", String(event.free_bytes));
          if (event.reserved_bytes !== undefined) counter("reserved", String(event.reserved_bytes));
          stats.deviceMemorySamples += 1;
          break;
        }
        default:
          // tensor, gradient and edge events carry no time; they are not drawn.
          break;
      }
    }
    if (meta === undefined) throw new Error("the trace has no meta event");
    // Spans never closed are drawn with zero duration and marked `closed: false`.
    for (const id of spanLanes.openSpanIds().reverse()) emitSpan(id, 0n, false);
    const counters = new MemoryCounters();
    let merged = 0;
    for (const record of sorter.sorted()) {
      // The merge is synchronous work over every memory event; let signals (Ctrl-C) through.
      merged += 1;
      if ((merged & 0xffff) === 0) await new Promise<void>((done) => setImmediate(done));
      for (const sample of counters.apply(record)) {
        emit(
          `{"name":${quote(sample.name)},"ph":"C","ts":${microsecondsText(sample.timestamp)},"pid":${PROCESS_ID},"args":{"bytes":${sample.value}}}`,
        );
      }
    }
    stats.spilledMemoryRuns = sorter.spilledRuns;
    stats.spanTracks = spanLanes.laneCount;
    stats.opTracks = opLanes.laneCount;
    write("\n]}\n");
    return stats;
  } finally {
    sorter.dispose();
  }
}
