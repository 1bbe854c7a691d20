// The strict line decoder (spec §2–§6, §8.2). V8's JSON.parse does the parsing; one structural scan
// of the raw text (line-scan.ts) recovers what JSON.parse hides; hand-written per-kind validators
// then build output objects of exactly the shape the zod schemas produce. zod stays off this path
// because readers call it once per line.

import {
  type DecodeContext,
  defaultedBoolean,
  defaultedU64,
  describeValue,
  enumValue,
  type JsonRecord,
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
import { type DecodeLineResult, LineFailure } from "./line-decode-error.js";
import { scanLine } from "./line-scan.js";

function decodeMeta(record: JsonRecord, context: DecodeContext): MetaEvent {
  const event: MetaEvent = {
    kind: "meta",
    schema: requiredString(record.schema, "schema", context),
    run_id: requiredString(record.run_id, "run_id", context),
    correlation_id: requiredString(record.correlation_id, "correlation_id", context),
    entrypoint: requiredString(record.entrypoint, "entrypoint", context),
    phase: requiredEnum(record.phase, "phase", EXECUTION_PHASES, context),
    timestamp: requiredString(record.timestamp, "timestamp", context),
    capture_step: requiredU64(record.capture_step, "capture_step", context),
    warmup_steps: requiredU64(record.warmup_steps, "warmup_steps", context),
    device: requiredString(record.device, "device", context),
    measured_region_device_synchronized: defaultedBoolean(
      record.measured_region_device_synchronized,
      "measured_region_device_synchronized",
      context,
    ),
    timing_mode: requiredEnum(record.timing_mode, "timing_mode", TIMING_MODES, context),
    tags: tagsValue(record.tags, context),
  };
  const candleVersion = optionalString(record.candle_version, "candle_version", context);
  if (candleVersion !== undefined) event.candle_version = candleVersion;
  return event;
}

function decodeSpanStart(record: JsonRecord, context: DecodeContext): SpanStartEvent {
  const id = requiredString(record.id, "id", context);
  const parentId = optionalString(record.parent_id, "parent_id", context);
  const event: SpanStartEvent = {
    kind: "span_start",
    id,
    name: requiredString(record.name, "name", context),
    start_ns: requiredU64(record.start_ns, "start_ns", context),
    span_kind: requiredEnum(record.span_kind, "span_kind", SPAN_KINDS, context),
    measured: defaultedBoolean(record.measured, "measured", context),
  };
  if (parentId !== undefined) event.parent_id = parentId;
  const step = enumValue(record.step, "step", EXECUTION_STEPS, context, true);
  if (step !== undefined) event.step = step;
  return event;
}

function decodeSpanEnd(record: JsonRecord, context: DecodeContext): SpanEndEvent {
  return {
    kind: "span_end",
    id: requiredString(record.id, "id", context),
    duration_ns: defaultedU64(record.duration_ns, "duration_ns", context),
  };
}

function decodeOp(record: JsonRecord, context: DecodeContext): OpEvent {
  const spanId = requiredString(record.span_id, "span_id", context);
  const opName = requiredString(record.op_name, "op_name", context);
  const inputs = stringArrayValue(record.inputs, "inputs", context);
  const output = optionalString(record.output, "output", context);
  const event: OpEvent = {
    kind: "op",
    span_id: spanId,
    op_name: opName,
    inputs,
    shape: shapeValue(record.shape, context),
    dtype: requiredString(record.dtype, "dtype", context),
    device: requiredString(record.device, "device", context),
    duration_ns: requiredU64(record.duration_ns, "duration_ns", context),
    timestamp_ns: defaultedU64(record.timestamp_ns, "timestamp_ns", context),
    input_storage_bytes: 0,
  };
  if (output !== undefined) event.output = output;
  const storageBytes = optionalU64(record.storage_bytes, "storage_bytes", context);
  if (storageBytes !== undefined) event.storage_bytes = storageBytes;
  event.input_storage_bytes = defaultedU64(record.input_storage_bytes, "input_storage_bytes", context);
  return event;
}

function decodeTensor(record: JsonRecord, context: DecodeContext): TensorEvent {
  const event: TensorEvent = {
    kind: "tensor",
    span_id: requiredString(record.span_id, "span_id", context),
    tensor_id: requiredString(record.tensor_id, "tensor_id", context),
    shape: shapeValue(record.shape, context),
    dtype: requiredString(record.dtype, "dtype", context),
    device: requiredString(record.device, "device", context),
    requires_grad: defaultedBoolean(record.requires_grad, "requires_grad", context),
    category: "other",
  };
  const storageBytes = optionalU64(record.storage_bytes, "storage_bytes", context);
  if (storageBytes !== undefined) event.storage_bytes = storageBytes;
  event.category = enumValue(record.category, "category", MEMORY_CATEGORIES, context, false) ?? "other";
  return event;
}

function decodeMemory(record: JsonRecord, context: DecodeContext): MemoryEvent {
  const timestampNs = requiredU64(record.timestamp_ns, "timestamp_ns", context);
  const tensorId = requiredString(record.tensor_id, "tensor_id", context);
  const spanId = requiredString(record.span_id, "span_id", context);
  const opName = optionalString(record.op_name, "op_name", context);
  const event: MemoryEvent = {
    kind: "memory",
    timestamp_ns: timestampNs,
    tensor_id: tensorId,
    span_id: spanId,
    device: requiredString(record.device, "device", context),
    bytes: requiredU64(record.bytes, "bytes", context),
    action: requiredEnum(record.action, "action", MEMORY_ACTIONS, context),
    shape: shapeValue(record.shape, context),
    dtype: requiredString(record.dtype, "dtype", context),
    category: enumValue(record.category, "category", MEMORY_CATEGORIES, context, false) ?? "other",
  };
  if (opName !== undefined) event.op_name = opName;
  return event;
}

function decodeDeviceMemory(record: JsonRecord, context: DecodeContext): DeviceMemoryEvent {
  const event: DeviceMemoryEvent = {
    kind: "device_memory",
    timestamp_ns: requiredU64(record.timestamp_ns, "timestamp_ns", context),
    device: requiredString(record.device, "device", context),
    used_bytes: requiredU64(record.used_bytes, "used_bytes", context),
    free_bytes: requiredU64(record.free_bytes, "free_bytes", context),
  };
  const reservedBytes = optionalU64(record.reserved_bytes, "reserved_bytes", context);
  if (reservedBytes !== undefined) event.reserved_bytes = reservedBytes;
  return event;
}

function decodeGradient(record: JsonRecord, context: DecodeContext): GradientEvent {
  const event: GradientEvent = {
    kind: "gradient",
    event_id: requiredString(record.event_id, "event_id", context),
    root: requiredString(record.root, "root", context),
    key: requiredString(record.key, "key", context),
    state: requiredEnum(record.state, "state", GRADIENT_STATES, context),
  };
  const norm = optionalFloat(record.norm, "norm", context);
  if (norm !== undefined) event.norm = norm;
  return event;
}

function decodeEdge(record: JsonRecord, context: DecodeContext): EdgeEvent {
  return {
    kind: "edge",
    from_span: requiredString(record.from_span, "from_span", context),
    to_span: requiredString(record.to_span, "to_span", context),
    duration_ns: requiredU64(record.duration_ns, "duration_ns", context),
  };
}

function decodeRecord(record: JsonRecord, context: DecodeContext): TraceEvent {
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

function firstDuplicate(keys: readonly string[]): string {
  const seen = new Set<string>();
  for (const key of keys) {
    if (seen.has(key)) return key;
    seen.add(key);
  }
  return "";
}

/** True when a digit is directly followed by `e`/`E`: the line may hold an exponent literal. */
function mayHaveExponent(line: string): boolean {
  for (const letter of ["e", "E"]) {
    let position = line.indexOf(letter, 1);
    while (position !== -1) {
      const before = line.charCodeAt(position - 1);
      if (before >= 0x30 && before <= 0x39) return true;
      position = line.indexOf(letter, position + 1);
    }
  }
  return false;
}

/**
 * Optimistic path. Without backslashes, every way in which a line can differ from the compact
 * serialization of the value JSON.parse returned makes the line LONGER — whitespace between
 * tokens, a repeated key (its first occurrence vanished from the value), a non-canonical number
 * (`5000.0`, `-0`, `1.50`: String(value) is the shortest plain form) — except an exponent literal,
 * which can be as short or shorter only for the values `exponentPossible` flags; such lines are
 * checked for exponents first. So when the validators accepted every key (no unknown keys) and the
 * compact length they accounted for equals the line's length, no literal-level rule can fail and
 * the event is final. Anything else goes through the exact path.
 */
export function decodeOptimistic(line: string, record: JsonRecord, kind: string): TraceEvent | undefined {
  if (line.indexOf("\\") !== -1) return undefined;
  const context = newContext(kind, null);
  let event: TraceEvent;
  try {
    event = decodeRecord(record, context);
  } catch {
    return undefined;
  }
  // `"kind":"<kind>",` plus braces, minus the comma after the last key. Unknown keys are never
  // accounted for, so their text alone makes the line longer: equality also proves there are none.
  const compactLength = context.length + kind.length + 10 + 1;
  if (compactLength !== line.length) return undefined;
  if (context.exponentPossible && mayHaveExponent(line)) return undefined;
  return event;
}

function decodeExact(line: string, record: JsonRecord, kind: string): TraceEvent {
  const scan = scanLine(line, false, kind);
  if (scan.keyCount !== Object.keys(record).length) {
    const keys = scanLine(line, true, kind).keys ?? [];
    const duplicate = firstDuplicate(keys);
    throw new LineFailure("duplicate_field", `duplicate field \`${duplicate}\``, `${kind}.${duplicate}`);
  }
  return decodeRecord(record, newContext(kind, scan.facts));
}

function decode(line: string): TraceEvent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new LineFailure("invalid_json", `invalid JSON: ${detail}`);
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new LineFailure("invalid_type", `invalid type: ${describeValue(parsed)}, expected an event object`);
  }
  const record = parsed as JsonRecord;
  const kindValue = record.kind;
  if (typeof kindValue === "string") {
    const event = decodeOptimistic(line, record, kindValue);
    if (event !== undefined) return event;
    return decodeExact(line, record, kindValue);
  }
  return decodeExact(line, record, "event");
}

/**
 * Decodes one trimmed, non-blank line (see `trimTraceLine`) into a trace event, applying every
 * rule of spec §2–§6: strict u64 literals with exact bigints above 2^53, case-sensitive enums,
 * null-as-absent only where allowed, defaults, unknown keys ignored, duplicate keys rejected,
 * escaped lone surrogates rejected. Never throws for bad input; the result says what and where.
 */
export function decodeTraceLine(trimmedLine: string): DecodeLineResult {
  try {
    return { ok: true, event: decode(trimmedLine) };
  } catch (error) {
    if (error instanceof LineFailure) return { ok: false, error: error.toError() };
    throw error;
  }
}
