// Byte fast path: the frequent lines (op, tensor, memory, device_memory, span_start, span_end) written straight
// into the sink's byte buffer, with no intermediate string, no per-line allocation and no UTF-8
// encoder call.
//
// It covers the common case only: every string is printable ASCII with nothing to escape, every
// integer is a safe non-negative number (or a u64 bigint), arrays are plain arrays. On anything
// else — a value that needs escaping or is not ASCII, an invalid value, a line that might not fit
// — a writer returns -1 and the caller takes the string serializers (`op-line.ts`, `tensor-line.ts`,
// `memory-line.ts`, `span-lines.ts`), which validate, throw the field-naming errors and produce the
// canonical bytes.
// A writer only stores bytes past the sink's committed offset, so a bail-out leaves nothing
// behind: the caller commits the returned end offset, or nothing.
//
// Space: `limit` is the buffer length minus FIXED_RESERVE. A writer checks `pos` against `limit`
// before its first byte, and every variable-length piece (a string, an array element) checks again;
// constant key fragments and integers are written unchecked, since whatever follows a check
// (constants plus at most a few integers) always fits. (Constant fragments go through a DataView,
// which throws past its end, so the checks are what keeps a writer in bounds.)
import { storageBytes } from "@cg/memory";
import { MEMORY_CATEGORIES, type MemoryAction, U64_MAX } from "@cg/schema";
import type { MemoryRecord, OpRecord, TensorRecord } from "../record-inputs.js";

/** Bytes kept free past the last check: all constant fragments of a line plus its integers. */
export const FIXED_RESERVE = 512;

const MAX_SAFE = Number.MAX_SAFE_INTEGER;
const QUOTE = 0x22;

/** A byte buffer and a DataView over the same bytes (constant fragments go in 4-byte words). */
export interface LineTarget {
  readonly bytes: Uint8Array;
  readonly view: DataView;
}

export function lineTarget(bytes: Uint8Array): LineTarget {
  return { bytes, view: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength) };
}

/** A constant ASCII fragment pre-split into little-endian 32-bit words and a 0–3 byte tail. */
class Fragment {
  readonly words: Int32Array;
  readonly tail: Uint8Array;
  readonly length: number;
  constructor(text: string) {
    const length = text.length;
    const count = length >> 2;
    this.words = new Int32Array(count);
    for (let index = 0; index < count; index++) {
      const at = index * 4;
      this.words[index] =
        text.charCodeAt(at) |
        (text.charCodeAt(at + 1) << 8) |
        (text.charCodeAt(at + 2) << 16) |
        (text.charCodeAt(at + 3) << 24);
    }
    this.tail = new Uint8Array(length - count * 4);
    for (let index = 0; index < this.tail.length; index++)
      this.tail[index] = text.charCodeAt(count * 4 + index);
    this.length = length;
  }
}

/** Copies a constant fragment (word stores are several times faster than byte stores here). */
function putFragment(target: LineTarget, pos: number, fragment: Fragment): number {
  const view = target.view;
  const words = fragment.words;
  const count = words.length;
  for (let index = 0; index < count; index++) view.setInt32(pos + index * 4, words[index] as number, true);
  const tail = fragment.tail;
  const bytes = target.bytes;
  const at = pos + count * 4;
  for (let index = 0; index < tail.length; index++) bytes[at + index] = tail[index] as number;
  return pos + fragment.length;
}

/** A safe non-negative integer (clock readings come from a user-supplied clock). */
function isDigits(value: number): boolean {
  return value >= 0 && value <= MAX_SAFE && Math.floor(value) === value;
}

const OP_START = new Fragment('{"kind":"op","span_id":');
const OP_NAME = new Fragment(',"op_name":');
const INPUTS = new Fragment(',"inputs":');
const OUTPUT = new Fragment(',"output":');
const SHAPE = new Fragment(',"shape":');
const DTYPE = new Fragment(',"dtype":');
const DEVICE = new Fragment(',"device":');
const DURATION = new Fragment(',"duration_ns":');
const TIMESTAMP = new Fragment(',"timestamp_ns":');
const STORAGE = new Fragment(',"storage_bytes":');
const INPUT_STORAGE = new Fragment(',"input_storage_bytes":');
const SPAN_START = new Fragment('{"kind":"span_start","id":"');
const PARENT_ID = new Fragment('","parent_id":"');
const NAME = new Fragment('","name":');
const START_NS = new Fragment(',"start_ns":');
const SPAN_KIND = new Fragment(',"span_kind":');
const STEP = new Fragment(',"step":');
const SPAN_END = new Fragment('{"kind":"span_end","id":"');
const END_DURATION = new Fragment('","duration_ns":');
const MEASURED_TRUE = new Fragment(',"measured":true');
const MEASURED_FALSE = new Fragment(',"measured":false');
const TENSOR_START = new Fragment('{"kind":"tensor","span_id":');
const TENSOR_ID = new Fragment(',"tensor_id":');
const REQUIRES_GRAD_TRUE = new Fragment(',"requires_grad":true');
const REQUIRES_GRAD_FALSE = new Fragment(',"requires_grad":false');
const CATEGORY = new Fragment(',"category":');
const MEMORY_START = new Fragment('{"kind":"memory","timestamp_ns":');
const SPAN_ID = new Fragment(',"span_id":');
const BYTES = new Fragment(',"bytes":');
const ALLOC_SHAPE = new Fragment(',"action":"alloc","shape":');
const FREE_SHAPE = new Fragment(',"action":"free","shape":');
/** `"category"` for each memory category, and `"other"` for an absent one. */
const CATEGORY_JSON = new Map<unknown, string>([
  [undefined, '"other"'],
  ...MEMORY_CATEGORIES.map((category): [string, string] => [category, `"${category}"`]),
]);

/** Copies `text` (ASCII: span ids and enum literals) without checks. */
function putAscii(bytes: Uint8Array, pos: number, text: string): number {
  const length = text.length;
  for (let index = 0; index < length; index++) bytes[pos + index] = text.charCodeAt(index);
  return pos + length;
}

/**
 * `"value"` when every character is printable ASCII other than `"` and `\` (the canonical encoder
 * writes those characters as they are); -1 otherwise or when it would pass `limit`.
 */
export function putJsonString(bytes: Uint8Array, pos: number, limit: number, value: unknown): number {
  if (typeof value !== "string") return -1;
  const length = value.length;
  if (pos + length + 2 > limit) return -1;
  bytes[pos] = QUOTE;
  const start = pos + 1;
  for (let index = 0; index < length; index++) {
    const code = value.charCodeAt(index);
    if (code < 0x20 || code > 0x7e || code === 0x22 || code === 0x5c) return -1;
    bytes[start + index] = code;
  }
  bytes[start + length] = QUOTE;
  return start + length + 1;
}

/** Already-escaped JSON text (a cached literal) when it is ASCII; -1 otherwise or past `limit`. */
export function putJsonText(bytes: Uint8Array, pos: number, limit: number, text: string): number {
  const length = text.length;
  if (pos + length > limit) return -1;
  for (let index = 0; index < length; index++) {
    const code = text.charCodeAt(index);
    if (code > 0x7f) return -1;
    bytes[pos + index] = code;
  }
  return pos + length;
}

/** Digits of an integer in 0..999_999_999. */
function putSmall(bytes: Uint8Array, pos: number, value: number): number {
  let end = pos + 1;
  if (value >= 10) {
    end =
      value < 100
        ? pos + 2
        : value < 1000
          ? pos + 3
          : value < 10000
            ? pos + 4
            : value < 100000
              ? pos + 5
              : value < 1000000
                ? pos + 6
                : value < 10000000
                  ? pos + 7
                  : value < 100000000
                    ? pos + 8
                    : pos + 9;
  }
  let rest = value;
  for (let index = end - 1; index > pos; index--) {
    const next = (rest / 10) | 0;
    bytes[index] = 0x30 + rest - next * 10;
    rest = next;
  }
  bytes[pos] = 0x30 + rest;
  return end;
}

/** Digits of a safe non-negative integer (the caller has checked the range). */
export function putDigits(bytes: Uint8Array, pos: number, value: number): number {
  if (value < 1e9) return putSmall(bytes, pos, value);
  let high = Math.floor(value / 1e9);
  let low = value - high * 1e9;
  // Division can round across a multiple of 1e9; correct by one either way.
  if (low < 0) {
    high -= 1;
    low += 1e9;
  } else if (low >= 1e9) {
    high += 1;
    low -= 1e9;
  }
  const start = putSmall(bytes, pos, high);
  let rest = low;
  for (let index = start + 8; index >= start; index--) {
    const next = (rest / 10) | 0;
    bytes[index] = 0x30 + rest - next * 10;
    rest = next;
  }
  return start + 9;
}

function isU64(value: unknown): boolean {
  return typeof value === "number"
    ? isDigits(value)
    : typeof value === "bigint" && value >= 0n && value <= U64_MAX;
}

/** A u64 (safe non-negative integer number or bigint up to 2^64 − 1); -1 for anything else. */
export function putU64(bytes: Uint8Array, pos: number, value: unknown): number {
  if (typeof value === "number") {
    if (value >= 0 && value <= MAX_SAFE && Math.floor(value) === value) return putDigits(bytes, pos, value);
    return -1;
  }
  if (typeof value === "bigint" && value >= 0n && value <= U64_MAX) {
    return putAscii(bytes, pos, value.toString());
  }
  return -1;
}

/** `[d0,d1,...]` of u64 dimensions; an absent shape is `[]`; -1 for anything else. */
function putShape(bytes: Uint8Array, pos: number, limit: number, shape: unknown): number {
  if (shape === undefined) {
    bytes[pos] = 0x5b;
    bytes[pos + 1] = 0x5d;
    return pos + 2;
  }
  if (!Array.isArray(shape)) return -1;
  let at = pos;
  bytes[at++] = 0x5b;
  const length = shape.length;
  for (let index = 0; index < length; index++) {
    if (at > limit) return -1;
    if (index > 0) bytes[at++] = 0x2c;
    at = putU64(bytes, at, shape[index]);
    if (at < 0) return -1;
  }
  bytes[at] = 0x5d;
  return at + 1;
}

/** `["a","b"]` of plain strings; absent is `[]`; -1 for anything else. */
function putStringArray(bytes: Uint8Array, pos: number, limit: number, values: unknown): number {
  if (values === undefined) {
    bytes[pos] = 0x5b;
    bytes[pos + 1] = 0x5d;
    return pos + 2;
  }
  if (!Array.isArray(values)) return -1;
  let at = pos;
  bytes[at++] = 0x5b;
  const length = values.length;
  for (let index = 0; index < length; index++) {
    if (index > 0) bytes[at++] = 0x2c;
    at = putJsonString(bytes, at, limit, values[index]);
    if (at < 0) return -1;
  }
  bytes[at] = 0x5d;
  return at + 1;
}

/**
 * The `op` line of `opLine` (same bytes, LF included) at `pos`; returns the end offset, or -1 to
 * fall back to `opLine`. `timestampNs` is the clock reading to use when the record has none.
 */
export function putOpLine(
  target: LineTarget,
  pos: number,
  spanId: string,
  record: OpRecord,
  zeroTimestampMeansNow: boolean,
  now: () => number,
): number {
  const bytes = target.bytes;
  const limit = bytes.length - FIXED_RESERVE;
  if (pos > limit || typeof record !== "object" || record === null) return -1;
  let at = putFragment(target, pos, OP_START);
  at = putJsonString(bytes, at, limit, spanId);
  if (at < 0) return -1;
  at = putFragment(target, at, OP_NAME);
  at = putJsonString(bytes, at, limit, record.opName);
  if (at < 0) return -1;
  at = putFragment(target, at, INPUTS);
  at = putStringArray(bytes, at, limit, record.inputs);
  if (at < 0) return -1;
  const output = record.output;
  if (output !== undefined) {
    at = putFragment(target, at, OUTPUT);
    at = putJsonString(bytes, at, limit, output);
    if (at < 0) return -1;
  }
  at = putFragment(target, at, SHAPE);
  const shape = record.shape;
  at = putShape(bytes, at, limit, shape);
  if (at < 0) return -1;
  at = putFragment(target, at, DTYPE);
  const dtype = record.dtype;
  at = putJsonString(bytes, at, limit, dtype);
  if (at < 0) return -1;
  at = putFragment(target, at, DEVICE);
  at = putJsonString(bytes, at, limit, record.device);
  if (at < 0) return -1;
  at = putFragment(target, at, DURATION);
  at = putU64(bytes, at, record.durationNs);
  if (at < 0) return -1;
  // Everything after the timestamp is checked before the clock is read, so a bail-out never costs
  // a second reading (the string path reads it once, as the memory sink does).
  const explicit = record.storageBytes;
  const inputStorage = record.inputStorageBytes;
  if (!(explicit === undefined || isU64(explicit)) || !(inputStorage === undefined || isU64(inputStorage))) {
    return -1;
  }
  at = putFragment(target, at, TIMESTAMP);
  const timestamp = record.timestampNs;
  if (timestamp === undefined || (timestamp === 0 && zeroTimestampMeansNow)) {
    const reading = now();
    if (!isDigits(reading)) return -1;
    at = putDigits(bytes, at, reading);
  } else {
    at = putU64(bytes, at, timestamp);
    if (at < 0) return -1;
  }
  at = putFragment(target, at, STORAGE);
  // shape and dtype are valid by now, so the derivation cannot throw.
  at = putU64(bytes, at, explicit === undefined ? storageBytes(shape ?? [], dtype as string) : explicit);
  if (at < 0) return -1;
  at = putFragment(target, at, INPUT_STORAGE);
  if (inputStorage === undefined) bytes[at++] = 0x30;
  else {
    at = putU64(bytes, at, inputStorage);
    if (at < 0) return -1;
  }
  bytes[at] = 0x7d;
  bytes[at + 1] = 0x0a;
  return at + 2;
}

/**
 * The `span_start` line of `spanStartLine` at `pos` (ids are `s<N>`, the name an escaped literal,
 * kind and step quoted literals); the end offset, or -1 to fall back.
 */
export function putSpanStartLine(
  target: LineTarget,
  pos: number,
  id: string,
  parentId: string,
  nameJson: string,
  startNs: number,
  spanKindJson: string,
  measured: boolean,
  stepJson: string | undefined,
): number {
  const bytes = target.bytes;
  const limit = bytes.length - FIXED_RESERVE;
  if (pos > limit || !isDigits(startNs)) return -1;
  let at = putFragment(target, pos, SPAN_START);
  at = putAscii(bytes, at, id);
  at = putFragment(target, at, PARENT_ID);
  at = putAscii(bytes, at, parentId);
  at = putFragment(target, at, NAME);
  at = putJsonText(bytes, at, limit, nameJson);
  if (at < 0) return -1;
  at = putFragment(target, at, START_NS);
  at = putDigits(bytes, at, startNs);
  at = putFragment(target, at, SPAN_KIND);
  at = putAscii(bytes, at, spanKindJson);
  at = putFragment(target, at, measured ? MEASURED_TRUE : MEASURED_FALSE);
  if (stepJson !== undefined) {
    at = putFragment(target, at, STEP);
    at = putAscii(bytes, at, stepJson);
  }
  bytes[at] = 0x7d;
  bytes[at + 1] = 0x0a;
  return at + 2;
}

/** The `span_end` line of `spanEndLine` at `pos`; the end offset, or -1 to fall back. */
export function putSpanEndLine(target: LineTarget, pos: number, id: string, durationNs: number): number {
  const bytes = target.bytes;
  if (pos > bytes.length - FIXED_RESERVE || !isDigits(durationNs)) return -1;
  let at = putFragment(target, pos, SPAN_END);
  at = putAscii(bytes, at, id);
  at = putFragment(target, at, END_DURATION);
  at = putDigits(bytes, at, durationNs);
  bytes[at] = 0x7d;
  bytes[at + 1] = 0x0a;
  return at + 2;
}

/**
 * `,"category":"…"}\n` for a valid or absent category; -1 for anything else. The caller has left
 * FIXED_RESERVE free, which the longest category fits.
 */
function putCategoryEnd(target: LineTarget, pos: number, category: unknown): number {
  const json = CATEGORY_JSON.get(category);
  if (json === undefined) return -1;
  const bytes = target.bytes;
  let at = putFragment(target, pos, CATEGORY);
  at = putAscii(bytes, at, json);
  bytes[at] = 0x7d;
  bytes[at + 1] = 0x0a;
  return at + 2;
}

/** The `tensor` line of `tensorLine` (same bytes, LF included) at `pos`; the end offset, or -1. */
export function putTensorLine(target: LineTarget, pos: number, spanId: string, record: TensorRecord): number {
  const bytes = target.bytes;
  const limit = bytes.length - FIXED_RESERVE;
  if (pos > limit || typeof record !== "object" || record === null) return -1;
  let at = putFragment(target, pos, TENSOR_START);
  at = putJsonString(bytes, at, limit, spanId);
  if (at < 0) return -1;
  at = putFragment(target, at, TENSOR_ID);
  at = putJsonString(bytes, at, limit, record.tensorId);
  if (at < 0) return -1;
  at = putFragment(target, at, SHAPE);
  const shape = record.shape;
  at = putShape(bytes, at, limit, shape);
  if (at < 0) return -1;
  at = putFragment(target, at, DTYPE);
  const dtype = record.dtype;
  at = putJsonString(bytes, at, limit, dtype);
  if (at < 0) return -1;
  at = putFragment(target, at, DEVICE);
  at = putJsonString(bytes, at, limit, record.device);
  if (at < 0) return -1;
  const requiresGrad = record.requiresGrad;
  if (requiresGrad !== undefined && typeof requiresGrad !== "boolean") return -1;
  at = putFragment(target, at, requiresGrad === true ? REQUIRES_GRAD_TRUE : REQUIRES_GRAD_FALSE);
  at = putFragment(target, at, STORAGE);
  const explicit = record.storageBytes;
  // shape and dtype are valid by now, so the derivation cannot throw.
  at = putU64(bytes, at, explicit === undefined ? storageBytes(shape ?? [], dtype as string) : explicit);
  if (at < 0) return -1;
  return putCategoryEnd(target, at, record.category);
}

/** Room left for a leading timestamp: the widest u64 has 20 digits. */
const TIMESTAMP_GAP = 20;

/**
 * Completes a line whose leading timestamp was left as a TIMESTAMP_GAP-byte gap at `gapAt` while
 * the rest, up to `end`, was written: the timestamp (or, when absent, one clock reading — taken
 * only now that the line is sure to be written) goes into the gap and the rest moves up behind it.
 * Returns the line's new end, or -1 for a timestamp or reading that is not a u64.
 */
function fillTimestampGap(
  bytes: Uint8Array,
  gapAt: number,
  end: number,
  timestamp: unknown,
  now: () => number,
): number {
  let digitsEnd: number;
  if (timestamp === undefined) {
    const reading = now();
    if (!isDigits(reading)) return -1;
    digitsEnd = putDigits(bytes, gapAt, reading);
  } else {
    digitsEnd = putU64(bytes, gapAt, timestamp);
    if (digitsEnd < 0) return -1;
  }
  const restStart = gapAt + TIMESTAMP_GAP;
  bytes.copyWithin(digitsEnd, restStart, end);
  return end - (restStart - digitsEnd);
}

/**
 * The `memory` line of `memoryLine` (same bytes, LF included) at `pos`; the end offset, or -1.
 * `now` is read only when the record has no timestamp, after every other field was checked.
 */
export function putMemoryLine(
  target: LineTarget,
  pos: number,
  spanId: string,
  record: MemoryRecord,
  action: MemoryAction,
  now: () => number,
): number {
  const bytes = target.bytes;
  const limit = bytes.length - FIXED_RESERVE;
  if (pos > limit || typeof record !== "object" || record === null) return -1;
  // The timestamp comes first on the line but is written last: a bail-out must not cost a reading.
  let at = putFragment(target, pos, MEMORY_START);
  const timestampAt = at;
  const timestamp = record.timestampNs;
  at += TIMESTAMP_GAP;
  at = putFragment(target, at, TENSOR_ID);
  at = putJsonString(bytes, at, limit, record.tensorId);
  if (at < 0) return -1;
  at = putFragment(target, at, SPAN_ID);
  at = putJsonString(bytes, at, limit, spanId);
  if (at < 0) return -1;
  const opName = record.opName;
  if (opName !== undefined) {
    at = putFragment(target, at, OP_NAME);
    at = putJsonString(bytes, at, limit, opName);
    if (at < 0) return -1;
  }
  at = putFragment(target, at, DEVICE);
  at = putJsonString(bytes, at, limit, record.device);
  if (at < 0) return -1;
  at = putFragment(target, at, BYTES);
  at = putU64(bytes, at, record.bytes);
  if (at < 0) return -1;
  at = putFragment(target, at, action === "alloc" ? ALLOC_SHAPE : FREE_SHAPE);
  at = putShape(bytes, at, limit, record.shape);
  if (at < 0) return -1;
  at = putFragment(target, at, DTYPE);
  at = putJsonString(bytes, at, limit, record.dtype);
  if (at < 0) return -1;
  at = putCategoryEnd(target, at, record.category);
  if (at < 0) return -1;
  return fillTimestampGap(bytes, timestampAt, at, timestamp, now);
}

const DEVICE_MEMORY_START = new Fragment('{"kind":"device_memory","timestamp_ns":');
const USED_BYTES = new Fragment(',"used_bytes":');
const FREE_BYTES = new Fragment(',"free_bytes":');
const RESERVED_BYTES = new Fragment(',"reserved_bytes":');

/**
 * The `device_memory` line of `deviceMemoryLine` (same bytes, LF included) at `pos`; the end
 * offset, or -1. `now` is read only when no timestamp is given, after every other field was checked.
 */
export function putDeviceMemoryLine(
  target: LineTarget,
  pos: number,
  device: unknown,
  usedBytes: unknown,
  freeBytes: unknown,
  timestampNs: unknown,
  reservedBytes: unknown,
  now: () => number,
): number {
  const bytes = target.bytes;
  const limit = bytes.length - FIXED_RESERVE;
  if (pos > limit) return -1;
  let at = putFragment(target, pos, DEVICE_MEMORY_START);
  const timestampAt = at;
  at += TIMESTAMP_GAP;
  at = putFragment(target, at, DEVICE);
  at = putJsonString(bytes, at, limit, device);
  if (at < 0) return -1;
  at = putFragment(target, at, USED_BYTES);
  at = putU64(bytes, at, usedBytes);
  if (at < 0) return -1;
  at = putFragment(target, at, FREE_BYTES);
  at = putU64(bytes, at, freeBytes);
  if (at < 0) return -1;
  if (reservedBytes !== undefined) {
    at = putFragment(target, at, RESERVED_BYTES);
    at = putU64(bytes, at, reservedBytes);
    if (at < 0) return -1;
  }
  bytes[at] = 0x7d;
  bytes[at + 1] = 0x0a;
  return fillTimestampGap(bytes, timestampAt, at + 2, timestampNs, now);
}
