import { resolveStorageBytes } from "@cg/memory";
import {
  compareCodePoints,
  type DeviceMemoryEvent,
  type EdgeEvent,
  type ExecutionStep,
  type GradientEvent,
  type MemoryEvent,
  type OpEvent,
  type RunMetadata,
  type SpanKind,
  type TensorEvent,
  type TraceEvent,
  type U64,
} from "@cg/schema/core";
import type { TraceParseError } from "./trace-parse-error.js";

/** One span, built from its `span_start` and (if seen) `span_end` (spec §9.2). */
export interface SpanRecord {
  id: string;
  parent_id?: string;
  name: string;
  /** The span classification (wire key `span_kind`). */
  kind: SpanKind;
  measured: boolean;
  start_ns: U64;
  closed: boolean;
  /** From the `span_end`; 0 when the span was not closed. */
  duration_ns: U64;
  step?: ExecutionStep;
}

/** An `op` with `storage_bytes` resolved (spec §15.4). */
export type ResolvedOpEvent = OpEvent & { storage_bytes: U64 };
/** A `tensor` with `storage_bytes` resolved (spec §15.4). */
export type ResolvedTensorEvent = TensorEvent & { storage_bytes: U64 };

/** The parsed content of a trace (spec §9.1). Collections other than spans keep file order. */
export interface TraceDocument {
  schema: string;
  run: RunMetadata;
  /** Sorted by id in code point (UTF-8 byte) order. */
  spans: SpanRecord[];
  ops: ResolvedOpEvent[];
  tensors: ResolvedTensorEvent[];
  memory: MemoryEvent[];
  device_memory: DeviceMemoryEvent[];
  gradients: GradientEvent[];
  edges: EdgeEvent[];
  /** Lenient mode only: what was skipped or reported, in file order. */
  diagnostics?: TraceParseError[];
}

export function spanRecordFromStart(event: Extract<TraceEvent, { kind: "span_start" }>): SpanRecord {
  const record: SpanRecord = {
    id: event.id,
    name: event.name,
    kind: event.span_kind,
    measured: event.measured,
    start_ns: event.start_ns,
    closed: false,
    duration_ns: 0,
  };
  if (event.parent_id !== undefined) record.parent_id = event.parent_id;
  if (event.step !== undefined) record.step = event.step;
  return record;
}

/** Span order of a document: by id, in code point (UTF-8 byte) order. */
export function compareCodePointsSpans(left: SpanRecord, right: SpanRecord): number {
  return compareCodePoints(left.id, right.id);
}

/** Accumulates accepted events into a document. */
export class DocumentBuilder {
  #meta: Extract<TraceEvent, { kind: "meta" }> | undefined;
  readonly #spans = new Map<string, SpanRecord>();
  readonly #ops: ResolvedOpEvent[] = [];
  readonly #tensors: ResolvedTensorEvent[] = [];
  readonly #memory: MemoryEvent[] = [];
  readonly #deviceMemory: DeviceMemoryEvent[] = [];
  readonly #gradients: GradientEvent[] = [];
  readonly #edges: EdgeEvent[] = [];

  add = (event: TraceEvent): void => {
    switch (event.kind) {
      case "op":
        if (event.storage_bytes === undefined) {
          event.storage_bytes = resolveStorageBytes(undefined, event.shape, event.dtype);
        }
        this.#ops.push(event as ResolvedOpEvent);
        return;
      case "tensor":
        if (event.storage_bytes === undefined) {
          event.storage_bytes = resolveStorageBytes(undefined, event.shape, event.dtype);
        }
        this.#tensors.push(event as ResolvedTensorEvent);
        return;
      case "memory":
        this.#memory.push(event);
        return;
      case "span_start":
        this.#spans.set(event.id, spanRecordFromStart(event));
        return;
      case "span_end": {
        const span = this.#spans.get(event.id);
        if (span !== undefined) {
          span.closed = true;
          span.duration_ns = event.duration_ns;
        }
        return;
      }
      case "device_memory":
        this.#deviceMemory.push(event);
        return;
      case "gradient":
        this.#gradients.push(event);
        return;
      case "edge":
        this.#edges.push(event);
        return;
      case "meta":
        this.#meta ??= event;
        return;
    }
  };

  build(diagnostics?: TraceParseError[]): TraceDocument {
    const meta = this.#meta;
    if (meta === undefined) throw new Error("document has no meta event");
    const { kind: _kind, schema, ...run } = meta;
    const spans = [...this.#spans.values()].sort(compareCodePointsSpans);
    const document: TraceDocument = {
      schema,
      run,
      spans,
      ops: this.#ops,
      tensors: this.#tensors,
      memory: this.#memory,
      device_memory: this.#deviceMemory,
      gradients: this.#gradients,
      edges: this.#edges,
    };
    if (diagnostics !== undefined) document.diagnostics = diagnostics;
    return document;
  }
}
