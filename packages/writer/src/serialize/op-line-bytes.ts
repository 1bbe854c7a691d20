import { storageBytes } from "@cg/memory";
import type { OpRecord } from "../record-inputs.js";
import {
  isDigits,
  isU64,
  putDigits,
  putJsonString,
  putShape,
  putStringArray,
  putU64,
} from "./byte-values.js";
import { OP_NAME, putTensorLayout, STORAGE } from "./key-fragments.js";
import { FIXED_RESERVE, Fragment, type LineTarget, putFragment } from "./line-target.js";

const OP_START = new Fragment('{"kind":"op","span_id":');
const INPUTS = new Fragment(',"inputs":');
const OUTPUT = new Fragment(',"output":');
const DURATION = new Fragment(',"duration_ns":');
const TIMESTAMP = new Fragment(',"timestamp_ns":');
const INPUT_STORAGE = new Fragment(',"input_storage_bytes":');

/**
 * The `op` line of `opLine` (same bytes, LF included) at `pos`; returns the end offset, or -1 to
 * fall back to `opLine`. `now` is read once, only when the line takes the clock's time (no
 * `timestampNs`, or 0 with `zeroTimestampMeansNow`), after every other field was checked.
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
  const shape = record.shape;
  const dtype = record.dtype;
  at = putTensorLayout(target, at, limit, shape, dtype, record.device);
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
