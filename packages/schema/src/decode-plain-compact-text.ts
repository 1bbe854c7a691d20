// The plain compact-text tier of `decodeTraceLine`: one straight-line, never-throwing validator per
// event kind for the lines writers actually produce. It accepts only a subset of what the
// compact-text tier (decodeCompactText) accepts and returns the very same event for it: every
// known key has its plain type (no `null` anywhere; strings, booleans, enum spellings, safe
// non-negative integers, finite numbers for `norm`), and the same length proof holds — the compact
// length of the accepted keys and values equals the line's length and no accepted number could hide
// an exponent literal. Anything else (a `null`, a wrong type, a missing key, an unknown key, a
// `meta` line, any literal-level doubt) returns `undefined` and the line goes through the
// compact-text and any-JSON tiers, which produce the result and its error message.
//
// Each reader returns the compact length of `"key":value,` for an accepted value, 0 for an absent
// optional key and NaN for anything the tier does not accept: NaN survives every addition, so one
// comparison with the line's length at the end decides, without a branch per key.

import { digitCount, floatExponentPossible, type JsonRecord, mayHaveExponent } from "./decode-values.js";
import { EXECUTION_STEPS, GRADIENT_STATES, MEMORY_ACTIONS, MEMORY_CATEGORIES, SPAN_KINDS } from "./enums.js";
import type {
  DeviceMemoryEvent,
  EdgeEvent,
  GradientEvent,
  MemoryEvent,
  OpEvent,
  SpanEndEvent,
  SpanStartEvent,
  TensorEvent,
  TraceEvent,
} from "./events.js";

/**
 * Set by the number readers of the line being decoded (decoding is synchronous and never
 * re-entered): an accepted number could have been written as an exponent literal no longer than
 * its plain form (see u64Length in decode-values.ts).
 */
let exponentPossible = false;

/** `"key":"value",` */
function stringMember(value: unknown, key: string): number {
  return typeof value === "string" ? key.length + 6 + value.length : Number.NaN;
}

function optionalStringMember(value: unknown, key: string): number {
  return value === undefined ? 0 : stringMember(value, key);
}

/** Compact length of a safe non-negative integer (`-0` passes; its two characters fail the proof). */
function u64Digits(value: unknown): number {
  if (!Number.isSafeInteger(value)) return Number.NaN;
  const number = value as number;
  if (number < 0) return Number.NaN;
  if (number % 100 === 0 && number !== 0) exponentPossible = true;
  return digitCount(number);
}

/** `"key":digits,` */
function u64Member(value: unknown, key: string): number {
  return key.length + 4 + u64Digits(value);
}

function optionalU64Member(value: unknown, key: string): number {
  return value === undefined ? 0 : u64Member(value, key);
}

/** `"key":true,` / `"key":false,`; absent reads as the default `false`. */
function booleanMember(value: unknown, key: string): number {
  if (value === true) return key.length + 8;
  if (value === false) return key.length + 9;
  return value === undefined ? 0 : Number.NaN;
}

function enumMember(value: unknown, key: string, variants: readonly string[]): number {
  return typeof value === "string" && variants.includes(value) ? key.length + 6 + value.length : Number.NaN;
}

function optionalEnumMember(value: unknown, key: string, variants: readonly string[]): number {
  return value === undefined ? 0 : enumMember(value, key, variants);
}

/** `"shape":[d,d],` */
function shapeMember(value: unknown): number {
  if (value === undefined) return 0;
  if (!Array.isArray(value)) return Number.NaN;
  const count = value.length;
  let length = count === 0 ? 11 : count + 10;
  for (let index = 0; index < count; index++) length += u64Digits(value[index]);
  return length;
}

/** `"key":["s","s"],` */
function stringsMember(value: unknown, key: string): number {
  if (value === undefined) return 0;
  if (!Array.isArray(value)) return Number.NaN;
  const count = value.length;
  let length = key.length + 4 + (count === 0 ? 2 : count + 1);
  for (let index = 0; index < count; index++) {
    const element: unknown = value[index];
    length += typeof element === "string" ? element.length + 2 : Number.NaN;
  }
  return length;
}

/** `"key":number,` for `norm`: any finite number, written as String(value). */
function optionalFloatMember(value: unknown, key: string): number {
  if (value === undefined) return 0;
  if (typeof value !== "number") return Number.NaN;
  if (floatExponentPossible(value)) exponentPossible = true;
  return key.length + 4 + String(value).length;
}

/**
 * The length proof of the compact-text tier: `{"kind":"<kind>",` and `}` around the members, minus
 * the comma after the last one, is the whole line, and no accepted number could hide an exponent.
 */
function proven(line: string, kind: string, members: number): boolean {
  return kind.length + 11 + members === line.length && !(exponentPossible && mayHaveExponent(line));
}

function fastMemory(line: string, record: JsonRecord): MemoryEvent | undefined {
  const members =
    u64Member(record.timestamp_ns, "timestamp_ns") +
    stringMember(record.tensor_id, "tensor_id") +
    stringMember(record.span_id, "span_id") +
    optionalStringMember(record.op_name, "op_name") +
    stringMember(record.device, "device") +
    u64Member(record.bytes, "bytes") +
    enumMember(record.action, "action", MEMORY_ACTIONS) +
    shapeMember(record.shape) +
    stringMember(record.dtype, "dtype") +
    optionalEnumMember(record.category, "category", MEMORY_CATEGORIES);
  if (!proven(line, "memory", members)) return undefined;
  if (record.shape === undefined) record.shape = [];
  if (record.category === undefined) record.category = "other";
  return record as unknown as MemoryEvent;
}

function fastOp(line: string, record: JsonRecord): OpEvent | undefined {
  const members =
    stringMember(record.span_id, "span_id") +
    stringMember(record.op_name, "op_name") +
    stringsMember(record.inputs, "inputs") +
    optionalStringMember(record.output, "output") +
    shapeMember(record.shape) +
    stringMember(record.dtype, "dtype") +
    stringMember(record.device, "device") +
    u64Member(record.duration_ns, "duration_ns") +
    optionalU64Member(record.timestamp_ns, "timestamp_ns") +
    optionalU64Member(record.storage_bytes, "storage_bytes") +
    optionalU64Member(record.input_storage_bytes, "input_storage_bytes");
  if (!proven(line, "op", members)) return undefined;
  if (record.inputs === undefined) record.inputs = [];
  if (record.shape === undefined) record.shape = [];
  if (record.timestamp_ns === undefined) record.timestamp_ns = 0;
  if (record.input_storage_bytes === undefined) record.input_storage_bytes = 0;
  return record as unknown as OpEvent;
}

function fastTensor(line: string, record: JsonRecord): TensorEvent | undefined {
  const members =
    stringMember(record.span_id, "span_id") +
    stringMember(record.tensor_id, "tensor_id") +
    shapeMember(record.shape) +
    stringMember(record.dtype, "dtype") +
    stringMember(record.device, "device") +
    booleanMember(record.requires_grad, "requires_grad") +
    optionalU64Member(record.storage_bytes, "storage_bytes") +
    optionalEnumMember(record.category, "category", MEMORY_CATEGORIES);
  if (!proven(line, "tensor", members)) return undefined;
  if (record.shape === undefined) record.shape = [];
  if (record.requires_grad === undefined) record.requires_grad = false;
  if (record.category === undefined) record.category = "other";
  return record as unknown as TensorEvent;
}

function fastSpanStart(line: string, record: JsonRecord): SpanStartEvent | undefined {
  const members =
    stringMember(record.id, "id") +
    optionalStringMember(record.parent_id, "parent_id") +
    stringMember(record.name, "name") +
    u64Member(record.start_ns, "start_ns") +
    enumMember(record.span_kind, "span_kind", SPAN_KINDS) +
    booleanMember(record.measured, "measured") +
    optionalEnumMember(record.step, "step", EXECUTION_STEPS);
  if (!proven(line, "span_start", members)) return undefined;
  if (record.measured === undefined) record.measured = false;
  return record as unknown as SpanStartEvent;
}

function fastSpanEnd(line: string, record: JsonRecord): SpanEndEvent | undefined {
  const members = stringMember(record.id, "id") + optionalU64Member(record.duration_ns, "duration_ns");
  if (!proven(line, "span_end", members)) return undefined;
  if (record.duration_ns === undefined) record.duration_ns = 0;
  return record as unknown as SpanEndEvent;
}

function fastDeviceMemory(line: string, record: JsonRecord): DeviceMemoryEvent | undefined {
  const members =
    u64Member(record.timestamp_ns, "timestamp_ns") +
    stringMember(record.device, "device") +
    u64Member(record.used_bytes, "used_bytes") +
    u64Member(record.free_bytes, "free_bytes") +
    optionalU64Member(record.reserved_bytes, "reserved_bytes");
  return proven(line, "device_memory", members) ? (record as unknown as DeviceMemoryEvent) : undefined;
}

function fastGradient(line: string, record: JsonRecord): GradientEvent | undefined {
  const members =
    stringMember(record.event_id, "event_id") +
    stringMember(record.root, "root") +
    stringMember(record.key, "key") +
    enumMember(record.state, "state", GRADIENT_STATES) +
    optionalFloatMember(record.norm, "norm");
  return proven(line, "gradient", members) ? (record as unknown as GradientEvent) : undefined;
}

function fastEdge(line: string, record: JsonRecord): EdgeEvent | undefined {
  const members =
    stringMember(record.from_span, "from_span") +
    stringMember(record.to_span, "to_span") +
    u64Member(record.duration_ns, "duration_ns");
  return proven(line, "edge", members) ? (record as unknown as EdgeEvent) : undefined;
}

/**
 * The plain compact-text tier: the final event when `line` (whose JSON.parse result is `record`, with
 * `record.kind === kind`) is a plain compact line of a non-meta kind, else `undefined` (nothing
 * mutated). Never throws.
 */
export function decodePlainCompactText(
  line: string,
  record: JsonRecord,
  kind: string,
): TraceEvent | undefined {
  exponentPossible = false;
  // Most frequent kinds first.
  switch (kind) {
    case "memory":
      return fastMemory(line, record);
    case "op":
      return fastOp(line, record);
    case "tensor":
      return fastTensor(line, record);
    case "span_start":
      return fastSpanStart(line, record);
    case "span_end":
      return fastSpanEnd(line, record);
    case "device_memory":
      return fastDeviceMemory(line, record);
    case "gradient":
      return fastGradient(line, record);
    case "edge":
      return fastEdge(line, record);
    default:
      return undefined;
  }
}
