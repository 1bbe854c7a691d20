// The per-kind validators of the text tiers: each reads the object JSON.parse produced, validates
// every known key (value readers in decode-values.ts), and returns an object of exactly the shape
// the zod schemas produce. Run by the compact-text tier (with the length proof, decode-compact-text.ts)
// and by the any-JSON tier (with the facts of the structural scan, decode-any-json.ts).
import {
  type DecodeContext,
  defaultedBoolean,
  defaultedU64,
  describeValue,
  enumValue,
  type JsonRecord,
  mayHaveExponent,
  missingField,
  newContext,
  optionalFloat,
  optionalString,
  optionalU64,
  requiredEnum,
  requiredString,
  requiredU64,
  shapeValue,
  stringArrayValue,
  tagsValue,
  unknownVariant,
} from "./decode-values.js";
import {
  EVENT_KINDS,
  EXECUTION_PHASES,
  EXECUTION_STEPS,
  GRADIENT_STATES,
  MEMORY_ACTIONS,
  MEMORY_CATEGORIES,
  SPAN_KINDS,
  TIMING_MODES,
} from "./enums.js";
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
import { LineFailure } from "./line-decode-error.js";

/**
 * The compact-text tier's proof (see decodeCompactText), computed once per line after every known
 * key was validated: the line is exactly as long as the compact form the validators accounted for.
 */
export function isProvenCompact(context: DecodeContext): boolean {
  if (context.proven === undefined) {
    const line = context.line;
    context.proven =
      line !== undefined &&
      // `"kind":"<kind>",` plus braces, minus the comma after the last key.
      context.length + context.kind.length + 11 === line.length &&
      !(context.exponentPossible && mayHaveExponent(line));
  }
  return context.proven;
}

/** The parsed object may be returned as the event: proven compact and no `null` to drop. */
function canReuse(context: DecodeContext): boolean {
  return isProvenCompact(context) && !context.sawNull;
}

// Each decoder validates every known key first (in schema order), then either returns the parsed
// object itself — when the line was proven compact, with no unknown keys and no nulls, only absent
// defaults need filling in — or builds a fresh object of the zod output's shape.

function decodeMeta(record: JsonRecord, context: DecodeContext): MetaEvent {
  const schema = requiredString(record.schema, "schema", context);
  const runId = requiredString(record.run_id, "run_id", context);
  const correlationId = requiredString(record.correlation_id, "correlation_id", context);
  const entrypoint = requiredString(record.entrypoint, "entrypoint", context);
  const phase = requiredEnum(record.phase, "phase", EXECUTION_PHASES, context);
  const timestamp = requiredString(record.timestamp, "timestamp", context);
  const captureStep = requiredU64(record.capture_step, "capture_step", context);
  const warmupSteps = requiredU64(record.warmup_steps, "warmup_steps", context);
  const device = requiredString(record.device, "device", context);
  const synchronized = defaultedBoolean(
    record.measured_region_device_synchronized,
    "measured_region_device_synchronized",
    context,
  );
  const timingMode = requiredEnum(record.timing_mode, "timing_mode", TIMING_MODES, context);
  const tags = tagsValue(record.tags, context);
  const candleVersion = optionalString(record.candle_version, "candle_version", context);
  if (canReuse(context)) {
    record.measured_region_device_synchronized = synchronized;
    record.tags = tags;
    return record as unknown as MetaEvent;
  }
  const event: MetaEvent = {
    kind: "meta",
    schema,
    run_id: runId,
    correlation_id: correlationId,
    entrypoint,
    phase,
    timestamp,
    capture_step: captureStep,
    warmup_steps: warmupSteps,
    device,
    measured_region_device_synchronized: synchronized,
    timing_mode: timingMode,
    tags,
  };
  if (candleVersion !== undefined) event.candle_version = candleVersion;
  return event;
}

function decodeSpanStart(record: JsonRecord, context: DecodeContext): SpanStartEvent {
  const id = requiredString(record.id, "id", context);
  const parentId = optionalString(record.parent_id, "parent_id", context);
  const name = requiredString(record.name, "name", context);
  const startNs = requiredU64(record.start_ns, "start_ns", context);
  const spanKind = requiredEnum(record.span_kind, "span_kind", SPAN_KINDS, context);
  const measured = defaultedBoolean(record.measured, "measured", context);
  const step = enumValue(record.step, "step", EXECUTION_STEPS, context, true);
  if (canReuse(context)) {
    if (record.measured === undefined) record.measured = measured;
    return record as unknown as SpanStartEvent;
  }
  const event: SpanStartEvent = {
    kind: "span_start",
    id,
    name,
    start_ns: startNs,
    span_kind: spanKind,
    measured,
  };
  if (parentId !== undefined) event.parent_id = parentId;
  if (step !== undefined) event.step = step;
  return event;
}

function decodeSpanEnd(record: JsonRecord, context: DecodeContext): SpanEndEvent {
  const id = requiredString(record.id, "id", context);
  const durationNs = defaultedU64(record.duration_ns, "duration_ns", context);
  if (canReuse(context)) {
    if (record.duration_ns === undefined) record.duration_ns = durationNs;
    return record as unknown as SpanEndEvent;
  }
  return { kind: "span_end", id, duration_ns: durationNs };
}

function decodeOp(record: JsonRecord, context: DecodeContext): OpEvent {
  const spanId = requiredString(record.span_id, "span_id", context);
  const opName = requiredString(record.op_name, "op_name", context);
  const inputs = stringArrayValue(record.inputs, "inputs", context);
  const output = optionalString(record.output, "output", context);
  const shape = shapeValue(record.shape, context);
  const dtype = requiredString(record.dtype, "dtype", context);
  const device = requiredString(record.device, "device", context);
  const durationNs = requiredU64(record.duration_ns, "duration_ns", context);
  const timestampNs = defaultedU64(record.timestamp_ns, "timestamp_ns", context);
  const storageBytes = optionalU64(record.storage_bytes, "storage_bytes", context);
  const inputStorageBytes = defaultedU64(record.input_storage_bytes, "input_storage_bytes", context);
  if (canReuse(context)) {
    if (record.inputs === undefined) record.inputs = inputs;
    if (record.shape === undefined) record.shape = shape;
    if (record.timestamp_ns === undefined) record.timestamp_ns = timestampNs;
    if (record.input_storage_bytes === undefined) record.input_storage_bytes = inputStorageBytes;
    return record as unknown as OpEvent;
  }
  const event: OpEvent = {
    kind: "op",
    span_id: spanId,
    op_name: opName,
    inputs,
    shape,
    dtype,
    device,
    duration_ns: durationNs,
    timestamp_ns: timestampNs,
    input_storage_bytes: inputStorageBytes,
  };
  if (output !== undefined) event.output = output;
  if (storageBytes !== undefined) event.storage_bytes = storageBytes;
  return event;
}

function decodeTensor(record: JsonRecord, context: DecodeContext): TensorEvent {
  const spanId = requiredString(record.span_id, "span_id", context);
  const tensorId = requiredString(record.tensor_id, "tensor_id", context);
  const shape = shapeValue(record.shape, context);
  const dtype = requiredString(record.dtype, "dtype", context);
  const device = requiredString(record.device, "device", context);
  const requiresGrad = defaultedBoolean(record.requires_grad, "requires_grad", context);
  const storageBytes = optionalU64(record.storage_bytes, "storage_bytes", context);
  const category = enumValue(record.category, "category", MEMORY_CATEGORIES, context, false) ?? "other";
  if (canReuse(context)) {
    if (record.shape === undefined) record.shape = shape;
    if (record.requires_grad === undefined) record.requires_grad = requiresGrad;
    if (record.category === undefined) record.category = category;
    return record as unknown as TensorEvent;
  }
  const event: TensorEvent = {
    kind: "tensor",
    span_id: spanId,
    tensor_id: tensorId,
    shape,
    dtype,
    device,
    requires_grad: requiresGrad,
    category,
  };
  if (storageBytes !== undefined) event.storage_bytes = storageBytes;
  return event;
}

function decodeMemory(record: JsonRecord, context: DecodeContext): MemoryEvent {
  const timestampNs = requiredU64(record.timestamp_ns, "timestamp_ns", context);
  const tensorId = requiredString(record.tensor_id, "tensor_id", context);
  const spanId = requiredString(record.span_id, "span_id", context);
  const opName = optionalString(record.op_name, "op_name", context);
  const device = requiredString(record.device, "device", context);
  const bytes = requiredU64(record.bytes, "bytes", context);
  const action = requiredEnum(record.action, "action", MEMORY_ACTIONS, context);
  const shape = shapeValue(record.shape, context);
  const dtype = requiredString(record.dtype, "dtype", context);
  const category = enumValue(record.category, "category", MEMORY_CATEGORIES, context, false) ?? "other";
  if (canReuse(context)) {
    if (record.shape === undefined) record.shape = shape;
    if (record.category === undefined) record.category = category;
    return record as unknown as MemoryEvent;
  }
  const event: MemoryEvent = {
    kind: "memory",
    timestamp_ns: timestampNs,
    tensor_id: tensorId,
    span_id: spanId,
    device,
    bytes,
    action,
    shape,
    dtype,
    category,
  };
  if (opName !== undefined) event.op_name = opName;
  return event;
}

function decodeDeviceMemory(record: JsonRecord, context: DecodeContext): DeviceMemoryEvent {
  const timestampNs = requiredU64(record.timestamp_ns, "timestamp_ns", context);
  const device = requiredString(record.device, "device", context);
  const usedBytes = requiredU64(record.used_bytes, "used_bytes", context);
  const freeBytes = requiredU64(record.free_bytes, "free_bytes", context);
  const reservedBytes = optionalU64(record.reserved_bytes, "reserved_bytes", context);
  if (canReuse(context)) return record as unknown as DeviceMemoryEvent;
  const event: DeviceMemoryEvent = {
    kind: "device_memory",
    timestamp_ns: timestampNs,
    device,
    used_bytes: usedBytes,
    free_bytes: freeBytes,
  };
  if (reservedBytes !== undefined) event.reserved_bytes = reservedBytes;
  return event;
}

function decodeGradient(record: JsonRecord, context: DecodeContext): GradientEvent {
  const eventId = requiredString(record.event_id, "event_id", context);
  const root = requiredString(record.root, "root", context);
  const key = requiredString(record.key, "key", context);
  const state = requiredEnum(record.state, "state", GRADIENT_STATES, context);
  const norm = optionalFloat(record.norm, "norm", context);
  if (canReuse(context)) return record as unknown as GradientEvent;
  const event: GradientEvent = { kind: "gradient", event_id: eventId, root, key, state };
  if (norm !== undefined) event.norm = norm;
  return event;
}

function decodeEdge(record: JsonRecord, context: DecodeContext): EdgeEvent {
  const fromSpan = requiredString(record.from_span, "from_span", context);
  const toSpan = requiredString(record.to_span, "to_span", context);
  const durationNs = requiredU64(record.duration_ns, "duration_ns", context);
  if (canReuse(context)) return record as unknown as EdgeEvent;
  return { kind: "edge", from_span: fromSpan, to_span: toSpan, duration_ns: durationNs };
}

/** Validates `record` as an event of `context.kind`; throws a LineFailure for the first defect. */
export function validateRecord(record: JsonRecord, context: DecodeContext): TraceEvent {
  switch (context.kind) {
    case "meta":
      return decodeMeta(record, context);
    case "span_start":
      return decodeSpanStart(record, context);
    case "span_end":
      return decodeSpanEnd(record, context);
    case "op":
      return decodeOp(record, context);
    case "tensor":
      return decodeTensor(record, context);
    case "memory":
      return decodeMemory(record, context);
    case "device_memory":
      return decodeDeviceMemory(record, context);
    case "gradient":
      return decodeGradient(record, context);
    case "edge":
      return decodeEdge(record, context);
  }
  const kind = record.kind;
  if (kind === undefined) return missingField(newContext("event", null), "kind");
  if (typeof kind !== "string") {
    throw new LineFailure(
      "invalid_type",
      `invalid type: ${describeValue(kind)}, expected an event kind`,
      "kind",
    );
  }
  return unknownVariant(kind, EVENT_KINDS, "kind");
}
