// The session's record lines, string and bytes, each derived from the layout table through its
// line plan (line-plans.ts): text-lines.ts builds the string serializers, byte-lines.ts generates
// the byte serializers. These are the entry points the session calls.
import type { MemoryAction } from "@cg/schema/core";
import type { MemoryRecord, OpRecord, TensorRecord } from "../record-inputs.js";
import { BYTE_LINES } from "./byte-lines.js";
import { LINE_PLANS } from "./line-plans.js";
import type { LineTarget } from "./line-target.js";
import { textLine } from "./text-lines.js";

type Values = Readonly<Record<string, unknown>>;

const OP_TEXT = textLine(LINE_PLANS.op);
const TENSOR_TEXT = textLine(LINE_PLANS.tensor);
const MEMORY_TEXT = textLine(LINE_PLANS.memory);
const DEVICE_MEMORY_TEXT = textLine(LINE_PLANS.device_memory);

const noClock = (): number => 0;

/** One `op` line (spec §2.5); `storage_bytes` resolved (spec §15.4) and always written. */
export function opLine(spanIdJson: string, record: OpRecord, nowNs: () => number): string {
  return OP_TEXT(record as unknown as Values, spanIdJson, undefined, nowNs);
}

/**
 * The `op` line of `opLine` at `pos`; the end offset, or -1 to fall back to `opLine`. `now` is
 * read once, only when the line takes the clock's time (no `timestampNs`, or 0 with
 * `zeroTimestampMeansNow`), after every other field was checked.
 */
export function putOpLine(
  target: LineTarget,
  pos: number,
  spanId: string,
  record: OpRecord,
  zeroTimestampMeansNow: boolean,
  now: () => number,
): number {
  return BYTE_LINES.op(target, pos, spanId, record, undefined, zeroTimestampMeansNow, now);
}

/** One `tensor` line (spec §2.6); `storage_bytes` resolved and always written. */
export function tensorLine(spanIdJson: string, record: TensorRecord): string {
  return TENSOR_TEXT(record as unknown as Values, spanIdJson, undefined, noClock);
}

/** The `tensor` line of `tensorLine` at `pos`; the end offset, or -1. */
export function putTensorLine(target: LineTarget, pos: number, spanId: string, record: TensorRecord): number {
  return BYTE_LINES.tensor(target, pos, spanId, record, undefined, false, noClock);
}

/** One `memory` line (spec §2.7); `bytes` written as given. */
export function memoryLine(
  spanIdJson: string,
  record: MemoryRecord,
  action: MemoryAction,
  nowNs: () => number,
): string {
  return MEMORY_TEXT(record as unknown as Values, spanIdJson, action, nowNs);
}

/** The `memory` line of `memoryLine` at `pos`; the end offset, or -1. */
export function putMemoryLine(
  target: LineTarget,
  pos: number,
  spanId: string,
  record: MemoryRecord,
  action: MemoryAction,
  now: () => number,
): number {
  return BYTE_LINES.memory(target, pos, spanId, record, action, false, now);
}

/** One `device_memory` line (spec §2.8); `reserved_bytes` only when given. */
export function deviceMemoryLine(
  device: unknown,
  usedBytes: unknown,
  freeBytes: unknown,
  timestampNs: unknown,
  reservedBytes: unknown,
  nowNs: () => number,
): string {
  const values = { device, usedBytes, freeBytes, timestampNs, reservedBytes };
  return DEVICE_MEMORY_TEXT(values, "", undefined, nowNs);
}

/** The `device_memory` line of `deviceMemoryLine` at `pos`; the end offset, or -1. */
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
  const values = { device, usedBytes, freeBytes, timestampNs, reservedBytes };
  return BYTE_LINES.device_memory(target, pos, "", values, undefined, false, now);
}
