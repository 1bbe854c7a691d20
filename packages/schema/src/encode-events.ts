import { compareCodePoints } from "./code-point-order.js";
import { formatCanonicalFloat } from "./encode-float.js";
import { encodeJsonString as str } from "./encode-string.js";
import type {
  DeviceMemoryEvent,
  EdgeEvent,
  GradientEvent,
  MemoryEvent,
  MetaEvent,
  OpEvent,
  SpanEndEvent,
  SpanStartEvent,
  TensorEvent,
  TraceEvent,
} from "./events.js";
import { isU64, type U64 } from "./u64.js";

// Canonical encoders (spec §7): one hand-written function per kind fixes the reference's key order
// and skip-if-absent rules by construction. Each returns one line without its terminating LF.
// They throw a TypeError for values the wire cannot carry, so no encoder ever emits a line that
// `decodeTraceLine` would reject.

function u64(value: U64, field: string): string {
  if (typeof value === "number") {
    if (value >= 0 && Number.isSafeInteger(value) && !Object.is(value, -0)) return String(value);
  } else if (isU64(value)) {
    return value.toString();
  }
  throw new TypeError(`${field} must be an integer in 0..18446744073709551615, got ${String(value)}`);
}

function shapeList(shape: readonly U64[], field: string): string {
  let text = "[";
  for (let index = 0; index < shape.length; index++) {
    if (index > 0) text += ",";
    text += u64(shape[index] as U64, `${field}[${index}]`);
  }
  return `${text}]`;
}

function stringList(values: readonly string[]): string {
  let text = "[";
  for (let index = 0; index < values.length; index++) {
    if (index > 0) text += ",";
    text += str(values[index] as string);
  }
  return `${text}]`;
}

function bool(value: boolean): string {
  return value ? "true" : "false";
}

/** `tags` with keys in code-point (UTF-8 byte) order, not object enumeration order (spec §7.3). */
export function encodeTags(tags: Readonly<Record<string, string>>): string {
  const keys = Object.keys(tags).sort(compareCodePoints);
  let text = "{";
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index] as string;
    if (index > 0) text += ",";
    text += `${str(key)}:${str(tags[key] as string)}`;
  }
  return `${text}}`;
}

export function encodeMetaEvent(event: MetaEvent): string {
  let text =
    `{"kind":"meta","schema":${str(event.schema)},"run_id":${str(event.run_id)}` +
    `,"correlation_id":${str(event.correlation_id)},"entrypoint":${str(event.entrypoint)}` +
    `,"phase":${str(event.phase)},"timestamp":${str(event.timestamp)}` +
    `,"capture_step":${u64(event.capture_step, "meta.capture_step")}` +
    `,"warmup_steps":${u64(event.warmup_steps, "meta.warmup_steps")},"device":${str(event.device)}` +
    `,"measured_region_device_synchronized":${bool(event.measured_region_device_synchronized)}` +
    `,"timing_mode":${str(event.timing_mode)},"tags":${encodeTags(event.tags)}`;
  if (event.candle_version !== undefined) text += `,"candle_version":${str(event.candle_version)}`;
  return `${text}}`;
}

export function encodeSpanStartEvent(event: SpanStartEvent): string {
  let text = `{"kind":"span_start","id":${str(event.id)}`;
  if (event.parent_id !== undefined) text += `,"parent_id":${str(event.parent_id)}`;
  text +=
    `,"name":${str(event.name)},"start_ns":${u64(event.start_ns, "span_start.start_ns")}` +
    `,"span_kind":${str(event.span_kind)},"measured":${bool(event.measured)}`;
  if (event.step !== undefined) text += `,"step":${str(event.step)}`;
  return `${text}}`;
}

export function encodeSpanEndEvent(event: SpanEndEvent): string {
  return `{"kind":"span_end","id":${str(event.id)},"duration_ns":${u64(event.duration_ns, "span_end.duration_ns")}}`;
}

export function encodeOpEvent(event: OpEvent): string {
  let text =
    `{"kind":"op","span_id":${str(event.span_id)},"op_name":${str(event.op_name)}` +
    `,"inputs":${stringList(event.inputs)}`;
  if (event.output !== undefined) text += `,"output":${str(event.output)}`;
  text +=
    `,"shape":${shapeList(event.shape, "op.shape")},"dtype":${str(event.dtype)},"device":${str(event.device)}` +
    `,"duration_ns":${u64(event.duration_ns, "op.duration_ns")}` +
    `,"timestamp_ns":${u64(event.timestamp_ns, "op.timestamp_ns")}`;
  if (event.storage_bytes !== undefined)
    text += `,"storage_bytes":${u64(event.storage_bytes, "op.storage_bytes")}`;
  return `${text},"input_storage_bytes":${u64(event.input_storage_bytes, "op.input_storage_bytes")}}`;
}

export function encodeTensorEvent(event: TensorEvent): string {
  let text =
    `{"kind":"tensor","span_id":${str(event.span_id)},"tensor_id":${str(event.tensor_id)}` +
    `,"shape":${shapeList(event.shape, "tensor.shape")},"dtype":${str(event.dtype)},"device":${str(event.device)}` +
    `,"requires_grad":${bool(event.requires_grad)}`;
  if (event.storage_bytes !== undefined) {
    text += `,"storage_bytes":${u64(event.storage_bytes, "tensor.storage_bytes")}`;
  }
  return `${text},"category":${str(event.category)}}`;
}

export function encodeMemoryEvent(event: MemoryEvent): string {
  let text =
    `{"kind":"memory","timestamp_ns":${u64(event.timestamp_ns, "memory.timestamp_ns")}` +
    `,"tensor_id":${str(event.tensor_id)},"span_id":${str(event.span_id)}`;
  if (event.op_name !== undefined) text += `,"op_name":${str(event.op_name)}`;
  return (
    `${text},"device":${str(event.device)},"bytes":${u64(event.bytes, "memory.bytes")}` +
    `,"action":${str(event.action)},"shape":${shapeList(event.shape, "memory.shape")}` +
    `,"dtype":${str(event.dtype)},"category":${str(event.category)}}`
  );
}

export function encodeDeviceMemoryEvent(event: DeviceMemoryEvent): string {
  let text =
    `{"kind":"device_memory","timestamp_ns":${u64(event.timestamp_ns, "device_memory.timestamp_ns")}` +
    `,"device":${str(event.device)},"used_bytes":${u64(event.used_bytes, "device_memory.used_bytes")}` +
    `,"free_bytes":${u64(event.free_bytes, "device_memory.free_bytes")}`;
  if (event.reserved_bytes !== undefined) {
    text += `,"reserved_bytes":${u64(event.reserved_bytes, "device_memory.reserved_bytes")}`;
  }
  return `${text}}`;
}

/** A non-finite norm is written as `"norm":null`, exactly as the reference does (spec §6.2). */
export function encodeGradientEvent(event: GradientEvent): string {
  let text =
    `{"kind":"gradient","event_id":${str(event.event_id)},"root":${str(event.root)}` +
    `,"key":${str(event.key)},"state":${str(event.state)}`;
  if (event.norm !== undefined) text += `,"norm":${formatCanonicalFloat(event.norm)}`;
  return `${text}}`;
}

export function encodeEdgeEvent(event: EdgeEvent): string {
  return (
    `{"kind":"edge","from_span":${str(event.from_span)},"to_span":${str(event.to_span)}` +
    `,"duration_ns":${u64(event.duration_ns, "edge.duration_ns")}}`
  );
}

/** The canonical line of any event (no trailing LF). */
export function encodeTraceEvent(event: TraceEvent): string {
  switch (event.kind) {
    case "meta":
      return encodeMetaEvent(event);
    case "span_start":
      return encodeSpanStartEvent(event);
    case "span_end":
      return encodeSpanEndEvent(event);
    case "op":
      return encodeOpEvent(event);
    case "tensor":
      return encodeTensorEvent(event);
    case "memory":
      return encodeMemoryEvent(event);
    case "device_memory":
      return encodeDeviceMemoryEvent(event);
    case "gradient":
      return encodeGradientEvent(event);
    case "edge":
      return encodeEdgeEvent(event);
  }
}
