import type { MemoryAction } from "@cg/schema";
import type { MemoryRecord } from "../record-inputs.js";
import { putJsonString, putShape, putU64 } from "./byte-values.js";
import { putCategoryEnd } from "./category-bytes.js";
import { DEVICE, DTYPE, OP_NAME, SPAN_ID, TENSOR_ID } from "./key-fragments.js";
import { FIXED_RESERVE, Fragment, type LineTarget, putFragment } from "./line-target.js";
import { fillTimestampGap, TIMESTAMP_GAP } from "./timestamp-gap.js";

const MEMORY_START = new Fragment('{"kind":"memory","timestamp_ns":');
const BYTES = new Fragment(',"bytes":');
const ALLOC_SHAPE = new Fragment(',"action":"alloc","shape":');
const FREE_SHAPE = new Fragment(',"action":"free","shape":');

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
