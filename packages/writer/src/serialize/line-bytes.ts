// Byte fast path: the hottest lines (op, span_start, span_end) written straight into the sink's
// byte buffer, with no intermediate string, no per-line allocation and no UTF-8 encoder call.
//
// It covers the common case only: every string is printable ASCII with nothing to escape, every
// integer is a safe non-negative number (or a u64 bigint), arrays are plain arrays. On anything
// else — a value that needs escaping or is not ASCII, an invalid value, a line that might not fit
// — a writer returns -1 and the caller takes the string serializers (`op-line.ts`,
// `span-lines.ts`), which validate, throw the field-naming errors and produce the canonical bytes.
// A writer only stores bytes past the sink's committed offset, so a bail-out leaves nothing
// behind: the caller commits the returned end offset, or nothing.
//
// Space: `limit` is the buffer length minus FIXED_RESERVE. Constant key fragments and integers are
// written unchecked; every variable-length piece (a string, an array element) checks `pos` against
// `limit` first, so whatever follows a check (constants plus at most a few integers) always fits.
import { storageBytes } from "@cg/memory";
import { U64_MAX } from "@cg/schema";
import type { OpRecord } from "../record-inputs.js";

/** Bytes kept free past the last check: all constant fragments of a line plus its integers. */
export const FIXED_RESERVE = 512;

const MAX_SAFE = Number.MAX_SAFE_INTEGER;
const QUOTE = 0x22;

/** A safe non-negative integer (clock readings come from a user-supplied clock). */
function isDigits(value: number): boolean {
  return value >= 0 && value <= MAX_SAFE && Math.floor(value) === value;
}

/** Copies `text` (ASCII, chosen by this module) without checks. */
function putConstant(bytes: Uint8Array, pos: number, text: string): number {
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
    return putConstant(bytes, pos, value.toString());
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
  bytes: Uint8Array,
  pos: number,
  spanId: string,
  record: OpRecord,
  zeroTimestampMeansNow: boolean,
  now: () => number,
): number {
  const limit = bytes.length - FIXED_RESERVE;
  if (typeof record !== "object" || record === null) return -1;
  let at = putConstant(bytes, pos, '{"kind":"op","span_id":');
  at = putJsonString(bytes, at, limit, spanId);
  if (at < 0) return -1;
  at = putConstant(bytes, at, ',"op_name":');
  at = putJsonString(bytes, at, limit, record.opName);
  if (at < 0) return -1;
  at = putConstant(bytes, at, ',"inputs":');
  at = putStringArray(bytes, at, limit, record.inputs);
  if (at < 0) return -1;
  const output = record.output;
  if (output !== undefined) {
    at = putConstant(bytes, at, ',"output":');
    at = putJsonString(bytes, at, limit, output);
    if (at < 0) return -1;
  }
  at = putConstant(bytes, at, ',"shape":');
  const shape = record.shape;
  at = putShape(bytes, at, limit, shape);
  if (at < 0) return -1;
  at = putConstant(bytes, at, ',"dtype":');
  const dtype = record.dtype;
  at = putJsonString(bytes, at, limit, dtype);
  if (at < 0) return -1;
  at = putConstant(bytes, at, ',"device":');
  at = putJsonString(bytes, at, limit, record.device);
  if (at < 0) return -1;
  at = putConstant(bytes, at, ',"duration_ns":');
  at = putU64(bytes, at, record.durationNs);
  if (at < 0) return -1;
  // Everything after the timestamp is checked before the clock is read, so a bail-out never costs
  // a second reading (the string path reads it once, as the memory sink does).
  const explicit = record.storageBytes;
  const inputStorage = record.inputStorageBytes;
  if (!(explicit === undefined || isU64(explicit)) || !(inputStorage === undefined || isU64(inputStorage))) {
    return -1;
  }
  at = putConstant(bytes, at, ',"timestamp_ns":');
  const timestamp = record.timestampNs;
  if (timestamp === undefined || (timestamp === 0 && zeroTimestampMeansNow)) {
    const reading = now();
    if (!isDigits(reading)) return -1;
    at = putDigits(bytes, at, reading);
  } else {
    at = putU64(bytes, at, timestamp);
    if (at < 0) return -1;
  }
  at = putConstant(bytes, at, ',"storage_bytes":');
  // shape and dtype are valid by now, so the derivation cannot throw.
  at = putU64(bytes, at, explicit === undefined ? storageBytes(shape ?? [], dtype as string) : explicit);
  if (at < 0) return -1;
  at = putConstant(bytes, at, ',"input_storage_bytes":');
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
  bytes: Uint8Array,
  pos: number,
  id: string,
  parentId: string,
  nameJson: string,
  startNs: number,
  spanKindJson: string,
  measured: boolean,
  stepJson: string | undefined,
): number {
  const limit = bytes.length - FIXED_RESERVE;
  if (pos > limit || !isDigits(startNs)) return -1;
  let at = putConstant(bytes, pos, '{"kind":"span_start","id":"');
  at = putConstant(bytes, at, id);
  at = putConstant(bytes, at, '","parent_id":"');
  at = putConstant(bytes, at, parentId);
  at = putConstant(bytes, at, '","name":');
  at = putJsonText(bytes, at, limit, nameJson);
  if (at < 0) return -1;
  at = putConstant(bytes, at, ',"start_ns":');
  at = putDigits(bytes, at, startNs);
  at = putConstant(bytes, at, ',"span_kind":');
  at = putConstant(bytes, at, spanKindJson);
  at = putConstant(bytes, at, measured ? ',"measured":true' : ',"measured":false');
  if (stepJson !== undefined) {
    at = putConstant(bytes, at, ',"step":');
    at = putConstant(bytes, at, stepJson);
  }
  bytes[at] = 0x7d;
  bytes[at + 1] = 0x0a;
  return at + 2;
}

/** The `span_end` line of `spanEndLine` at `pos`; the end offset, or -1 to fall back. */
export function putSpanEndLine(bytes: Uint8Array, pos: number, id: string, durationNs: number): number {
  if (pos > bytes.length - FIXED_RESERVE || !isDigits(durationNs)) return -1;
  let at = putConstant(bytes, pos, '{"kind":"span_end","id":"');
  at = putConstant(bytes, at, id);
  at = putConstant(bytes, at, '","duration_ns":');
  at = putDigits(bytes, at, durationNs);
  bytes[at] = 0x7d;
  bytes[at + 1] = 0x0a;
  return at + 2;
}
