// The strict line decoder (spec §2–§6, §8.2). V8's JSON.parse does the parsing; one structural scan
// of the raw text (line-scan.ts) recovers what JSON.parse hides; hand-written per-kind validators
// then build output objects of exactly the shape the zod schemas produce. zod stays off this path
// because readers call it once per line.

import { decodeCanonicalLine } from "./decode-canonical.js";
import { decodeFast } from "./decode-fast.js";
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
import { EVENT_LAYOUTS, knownKeySets, mapKeySets } from "./event-layouts.js";
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

/**
 * The optimistic path's proof (see decodeOptimistic), computed once per line after every known
 * key was validated: the line is exactly as long as the compact form the validators accounted for.
 */
function isProvenCompact(context: DecodeContext): boolean {
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

const KNOWN_KEYS = knownKeySets(EVENT_LAYOUTS);
const MAP_KEYS = mapKeySets(EVENT_LAYOUTS);
/** An unknown kind has one known key: `kind` itself. */
const KIND_ONLY: ReadonlySet<string> = new Set(["kind"]);

/**
 * The first repeated KNOWN key (`kind` or a field of the kind), or undefined. A repeated unknown
 * key is ignored like any unknown key (spec §2.1).
 */
function firstKnownDuplicate(keys: readonly string[], known: ReadonlySet<string>): string | undefined {
  const seen = new Set<string>();
  for (const key of keys) {
    if (!known.has(key)) continue;
    if (seen.has(key)) return key;
    seen.add(key);
  }
  return undefined;
}

const optimisticContext = newContext("", null);

/** Lines up to this many UTF-16 units are tried with tier 0 first; writer lines are far shorter. */
const CANONICAL_TEXT_LIMIT = 4096;
/** UTF-8 needs at most three bytes per UTF-16 unit. */
const scratch = new Uint8Array(CANONICAL_TEXT_LIMIT * 3);
const utf8 = new TextEncoder();

/**
 * Tier 0 for text: the line's UTF-8 bytes through decodeCanonicalLine (ASCII lines only, so any
 * other character, a lone surrogate included, sends the line on to the JSON.parse tiers).
 */
function decodeCanonicalText(line: string): TraceEvent | undefined {
  if (line.length > CANONICAL_TEXT_LIMIT) return undefined;
  const { written } = utf8.encodeInto(line, scratch);
  return decodeCanonicalLine(scratch, 0, written);
}

/**
 * Optimistic path. Every way in which a line can differ from the compact serialization of the
 * value JSON.parse returned makes the line LONGER — whitespace between tokens, an escape sequence
 * in a string (`\n`, `\u00e9`, a lone `\ud800`: always longer than the character it stands for),
 * a repeated key (its first occurrence vanished from the value), a non-canonical number (`5000.0`,
 * `-0`, `1.50`: String(value) is the shortest plain form) — except an exponent literal, which can
 * be as short or shorter only for the values `exponentPossible` flags; such lines are checked for
 * exponents first. So when the compact length the validators accounted for equals the line's
 * length, no literal-level rule can fail, there are no unknown keys, and the event is final.
 * Anything else goes through the exact path.
 */
export function decodeOptimistic(line: string, record: JsonRecord, kind: string): TraceEvent | undefined {
  // One context for every optimistic attempt: decoding is synchronous and never re-entered.
  const context = optimisticContext;
  context.kind = kind;
  context.length = 0;
  context.exponentPossible = false;
  context.sawNull = false;
  context.line = line;
  context.proven = undefined;
  let event: TraceEvent;
  try {
    event = decodeRecord(record, context);
  } catch {
    return undefined;
  }
  // Unknown keys are never accounted for, so their text alone makes the line longer: the proof
  // also shows there are none.
  return isProvenCompact(context) ? event : undefined;
}

export function decodeExact(line: string, record: JsonRecord, kind: string): TraceEvent {
  const mapKeys = MAP_KEYS.get(kind);
  const scan = scanLine(line, false, kind, mapKeys);
  if (scan.keyCount !== Object.keys(record).length) {
    const keys = scanLine(line, true, kind).keys ?? [];
    const duplicate = firstKnownDuplicate(keys, KNOWN_KEYS.get(kind) ?? KIND_ONLY);
    if (duplicate !== undefined) {
      throw new LineFailure("duplicate_field", `duplicate field \`${duplicate}\``, `${kind}.${duplicate}`);
    }
  }
  const context = newContext(kind, scan.facts);
  context.mapFailure = scan.mapFailure;
  return decodeRecord(record, context);
}

/** The exact path for a parsed value, as a result. */
function decodeParsed(line: string, parsed: unknown): DecodeLineResult {
  try {
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
      throw new LineFailure(
        "invalid_type",
        `invalid type: ${describeValue(parsed)}, expected an event object`,
      );
    }
    const record = parsed as JsonRecord;
    const kind = typeof record.kind === "string" ? record.kind : "event";
    return { ok: true, event: decodeExact(line, record, kind) };
  } catch (error) {
    if (error instanceof LineFailure) return { ok: false, error: error.toError() };
    throw error;
  }
}

/**
 * Decodes one trimmed, non-blank line (see `trimTraceLine`) into a trace event, applying every
 * rule of spec §2–§6: strict u64 literals with exact bigints above 2^53, case-sensitive enums,
 * null-as-absent only where allowed, defaults, unknown keys ignored (repeated ones too), a
 * repeated known key rejected, every tag value a string, escaped lone surrogates rejected. Never throws for bad input; the result says what and where.
 */
export function decodeTraceLine(trimmedLine: string): DecodeLineResult {
  const canonical = decodeCanonicalText(trimmedLine);
  if (canonical !== undefined) return { ok: true, event: canonical };
  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmedLine);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return { ok: false, error: { code: "invalid_json", message: `invalid JSON: ${detail}` } };
  }
  // The common case stays free of exception frames: a proven-compact line of a known kind, first
  // through the fast tier (plain values only), then the optimistic tier (nulls, meta lines).
  if (typeof parsed === "object" && parsed !== null) {
    const kind = (parsed as JsonRecord).kind;
    if (typeof kind === "string") {
      const event =
        decodeFast(trimmedLine, parsed as JsonRecord, kind) ??
        decodeOptimistic(trimmedLine, parsed as JsonRecord, kind);
      if (event !== undefined) return { ok: true, event };
    }
  }
  return decodeParsed(trimmedLine, parsed);
}
