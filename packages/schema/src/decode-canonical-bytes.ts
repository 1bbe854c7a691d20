// The canonical-bytes tier of line decoding: a reader for lines in canonical form (spec §7: the reference's key
// order, plain literals), which is what candle-graph and @cg/writer write. It reads the UTF-8 bytes
// directly — no text decoding, no JSON.parse, no intermediate object — and accepts only the
// canonical grammar of each non-meta kind, ASCII only: every byte is checked, so an accepted line
// is also valid UTF-8. JSON white space between tokens is allowed (writers such as Python's
// json.dumps put a space after `,` and `:`); it costs nothing on compact lines, because it is only
// looked for where the expected byte was not found. Anything else (an escape, a non-ASCII character,
// a `null`, an unknown, missing, repeated or reordered key, a number above 15 digits, an exponent in
// a u64, a `meta` line) returns `undefined` and the caller falls back to `decodeTraceLine`, which
// produces the result or the error. For every line it accepts, the event is the one
// `decodeTraceLine` returns for the same text: same values, keys in line order (property-tested).
//
// The token readers, the string cache and the cursor are in canonical-cursor.ts.

import {
  ascii,
  begin,
  closeLine,
  expect,
  isOk,
  type Literal,
  optionalKey,
  peekByte,
  readBoolean,
  readEnum,
  readFloat,
  readShape,
  readString,
  readStrings,
  readU64,
} from "./canonical-cursor.js";
import { kindLiterals, memberLiterals } from "./canonical-key-literals.js";
import {
  EXECUTION_STEPS,
  type ExecutionStep,
  GRADIENT_STATES,
  type GradientState,
  MEMORY_ACTIONS,
  MEMORY_CATEGORIES,
  type MemoryAction,
  type MemoryCategory,
  SPAN_KINDS,
  type SpanKind,
} from "./enums.js";
import { EVENT_LAYOUTS } from "./event-layouts.js";
import type { EventOfKind, TraceEvent } from "./events.js";

type Layouts = typeof EVENT_LAYOUTS;
type FieldKey = Layouts[keyof Layouts]["fields"][number]["key"];

function asLiterals(texts: Record<string, string>): Record<string, Literal> {
  return Object.fromEntries(Object.entries(texts).map(([key, text]) => [key, ascii(text)]));
}

/** `,"key":` of every member after the first, as bytes (from the layout table). */
const MEMBER = asLiterals(memberLiterals(EVENT_LAYOUTS)) as Record<FieldKey, Literal>;

/** The rest of the prefix `{"kind":"<kind>","<first key>":` of each kind, after `{"kind":"`. */
const KIND = asLiterals(kindLiterals(EVENT_LAYOUTS)) as Record<keyof Layouts, Literal>;

// One reader per kind, in the canonical key order of the encoders in encode-events.ts. The events
// are built with their keys in line order, as JSON.parse would have created them, by one object
// literal per combination of optional keys: each literal is one fixed hidden class with its fields
// in the object, which adding the optional keys afterwards would not give.

function readSpanStart(): EventOfKind<"span_start"> {
  const id = readString();
  const hasParent = optionalKey(MEMBER.parent_id);
  const parentId = hasParent ? readString() : "";
  expect(MEMBER.name);
  const name = readString();
  expect(MEMBER.start_ns);
  const startNs = readU64();
  expect(MEMBER.span_kind);
  const spanKind: SpanKind = readEnum(SPAN_KINDS);
  expect(MEMBER.measured);
  const measured = readBoolean();
  const hasStep = optionalKey(MEMBER.step);
  const step: ExecutionStep = hasStep ? readEnum(EXECUTION_STEPS) : "forward";
  const kind = "span_start";
  if (hasParent) {
    return hasStep
      ? { kind, id, parent_id: parentId, name, start_ns: startNs, span_kind: spanKind, measured, step }
      : { kind, id, parent_id: parentId, name, start_ns: startNs, span_kind: spanKind, measured };
  }
  return hasStep
    ? { kind, id, name, start_ns: startNs, span_kind: spanKind, measured, step }
    : { kind, id, name, start_ns: startNs, span_kind: spanKind, measured };
}

function readSpanEnd(): EventOfKind<"span_end"> {
  const id = readString();
  expect(MEMBER.duration_ns);
  return { kind: "span_end", id, duration_ns: readU64() };
}

function readOp(): EventOfKind<"op"> {
  const spanId = readString();
  expect(MEMBER.op_name);
  const opName = readString();
  expect(MEMBER.inputs);
  const inputs = readStrings();
  const hasOutput = optionalKey(MEMBER.output);
  const output = hasOutput ? readString() : "";
  expect(MEMBER.shape);
  const shape = readShape();
  expect(MEMBER.dtype);
  const dtype = readString();
  expect(MEMBER.device);
  const device = readString();
  expect(MEMBER.duration_ns);
  const durationNs = readU64();
  expect(MEMBER.timestamp_ns);
  const timestampNs = readU64();
  const hasStorage = optionalKey(MEMBER.storage_bytes);
  const storageBytes = hasStorage ? readU64() : 0;
  expect(MEMBER.input_storage_bytes);
  const inputStorageBytes = readU64();
  const kind = "op";
  if (hasOutput) {
    return hasStorage
      ? {
          kind,
          span_id: spanId,
          op_name: opName,
          inputs,
          output,
          shape,
          dtype,
          device,
          duration_ns: durationNs,
          timestamp_ns: timestampNs,
          storage_bytes: storageBytes,
          input_storage_bytes: inputStorageBytes,
        }
      : {
          kind,
          span_id: spanId,
          op_name: opName,
          inputs,
          output,
          shape,
          dtype,
          device,
          duration_ns: durationNs,
          timestamp_ns: timestampNs,
          input_storage_bytes: inputStorageBytes,
        };
  }
  return hasStorage
    ? {
        kind,
        span_id: spanId,
        op_name: opName,
        inputs,
        shape,
        dtype,
        device,
        duration_ns: durationNs,
        timestamp_ns: timestampNs,
        storage_bytes: storageBytes,
        input_storage_bytes: inputStorageBytes,
      }
    : {
        kind,
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
}

function readTensor(): EventOfKind<"tensor"> {
  const spanId = readString();
  expect(MEMBER.tensor_id);
  const tensorId = readString();
  expect(MEMBER.shape);
  const shape = readShape();
  expect(MEMBER.dtype);
  const dtype = readString();
  expect(MEMBER.device);
  const device = readString();
  expect(MEMBER.requires_grad);
  const requiresGrad = readBoolean();
  const hasStorage = optionalKey(MEMBER.storage_bytes);
  const storageBytes = hasStorage ? readU64() : 0;
  expect(MEMBER.category);
  const category: MemoryCategory = readEnum(MEMORY_CATEGORIES);
  const kind = "tensor";
  return hasStorage
    ? {
        kind,
        span_id: spanId,
        tensor_id: tensorId,
        shape,
        dtype,
        device,
        requires_grad: requiresGrad,
        storage_bytes: storageBytes,
        category,
      }
    : {
        kind,
        span_id: spanId,
        tensor_id: tensorId,
        shape,
        dtype,
        device,
        requires_grad: requiresGrad,
        category,
      };
}

function readMemory(): EventOfKind<"memory"> {
  const timestampNs = readU64();
  expect(MEMBER.tensor_id);
  const tensorId = readString();
  expect(MEMBER.span_id);
  const spanId = readString();
  const hasOpName = optionalKey(MEMBER.op_name);
  const opName = hasOpName ? readString() : "";
  expect(MEMBER.device);
  const device = readString();
  expect(MEMBER.bytes);
  const bytes = readU64();
  expect(MEMBER.action);
  const action: MemoryAction = readEnum(MEMORY_ACTIONS);
  expect(MEMBER.shape);
  const shape = readShape();
  expect(MEMBER.dtype);
  const dtype = readString();
  expect(MEMBER.category);
  const category: MemoryCategory = readEnum(MEMORY_CATEGORIES);
  const kind = "memory";
  return hasOpName
    ? {
        kind,
        timestamp_ns: timestampNs,
        tensor_id: tensorId,
        span_id: spanId,
        op_name: opName,
        device,
        bytes,
        action,
        shape,
        dtype,
        category,
      }
    : {
        kind,
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
}

function readDeviceMemory(): EventOfKind<"device_memory"> {
  const timestampNs = readU64();
  expect(MEMBER.device);
  const device = readString();
  expect(MEMBER.used_bytes);
  const usedBytes = readU64();
  expect(MEMBER.free_bytes);
  const freeBytes = readU64();
  const hasReserved = optionalKey(MEMBER.reserved_bytes);
  const reservedBytes = hasReserved ? readU64() : 0;
  const kind = "device_memory";
  return hasReserved
    ? {
        kind,
        timestamp_ns: timestampNs,
        device,
        used_bytes: usedBytes,
        free_bytes: freeBytes,
        reserved_bytes: reservedBytes,
      }
    : { kind, timestamp_ns: timestampNs, device, used_bytes: usedBytes, free_bytes: freeBytes };
}

function readGradient(): EventOfKind<"gradient"> {
  const eventId = readString();
  expect(MEMBER.root);
  const root = readString();
  expect(MEMBER.key);
  const key = readString();
  expect(MEMBER.state);
  const state: GradientState = readEnum(GRADIENT_STATES);
  const kind = "gradient";
  if (!optionalKey(MEMBER.norm)) return { kind, event_id: eventId, root, key, state };
  return { kind, event_id: eventId, root, key, state, norm: readFloat() };
}

function readEdge(): EventOfKind<"edge"> {
  const fromSpan = readString();
  expect(MEMBER.to_span);
  const toSpan = readString();
  expect(MEMBER.duration_ns);
  return { kind: "edge", from_span: fromSpan, to_span: toSpan, duration_ns: readU64() };
}

const PREFIX = ascii('{"kind":"');

function readEvent(): TraceEvent | undefined {
  if (!optionalKey(PREFIX)) return undefined;
  // Dispatch on the kind's first letters; `expect` then checks the whole kind and first key.
  switch (peekByte()) {
    case 0x6d: // m
      expect(KIND.memory);
      return readMemory();
    case 0x6f: // o
      expect(KIND.op);
      return readOp();
    case 0x74: // t
      expect(KIND.tensor);
      return readTensor();
    case 0x73: // s
      if (optionalKey(KIND.span_start)) return readSpanStart();
      expect(KIND.span_end);
      return readSpanEnd();
    case 0x64: // d
      expect(KIND.device_memory);
      return readDeviceMemory();
    case 0x67: // g
      expect(KIND.gradient);
      return readGradient();
    case 0x65: // e
      expect(KIND.edge);
      return readEdge();
    default:
      return undefined; // meta (once per file) and anything unexpected: the JSON.parse tiers
  }
}

/**
 * Decodes the UTF-8 line `source[start..stop)` (no line feed) when it is a non-meta event line in
 * canonical form: the reference's key order and plain literals, ASCII, no escapes. JSON white space
 * between tokens and around the line is allowed. Returns `undefined` for anything else, including
 * lines that are valid but not canonical — decode those as text with `decodeTraceLine`. Never
 * throws. The event is exactly the one `decodeTraceLine` returns for the same line. A reference to
 * `source` is kept until the next call with another buffer (reads go through a view of it).
 */
export function decodeCanonicalLine(
  source: Uint8Array,
  start = 0,
  stop = source.length,
): TraceEvent | undefined {
  begin(source, start, stop);
  const event = readEvent();
  return isOk() && event !== undefined && closeLine() === stop ? event : undefined;
}

/** Where `readCanonicalLine` leaves its result; one object can be reused for every line. */
export interface CanonicalLine {
  /** The decoded event (left as it was when the line is not canonical). */
  event: TraceEvent | undefined;
  /** Index of the line's terminating LF, or the length of the input when the line has none. */
  end: number;
}

const LF = 0x0a;

/**
 * The streaming form of `decodeCanonicalLine`, for readers holding many lines in one buffer: reads
 * the canonical event line that starts at `start` and finds its end on the way (trailing white
 * space such as the CR of CRLF is allowed), so the caller needs no separate search for the line
 * feed. Returns false, and the caller decodes the line as text, for anything that is not one
 * canonical line followed by LF or the end of `source`.
 */
export function readCanonicalLine(source: Uint8Array, start: number, into: CanonicalLine): boolean {
  const length = source.length;
  begin(source, start, length);
  const event = readEvent();
  if (!isOk() || event === undefined) return false;
  const after = closeLine();
  if (after < 0 || (after < length && source[after] !== LF)) return false;
  into.event = event;
  into.end = after;
  return true;
}
