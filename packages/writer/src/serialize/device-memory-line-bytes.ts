import { putJsonString, putU64 } from "./byte-values.js";
import { DEVICE } from "./key-fragments.js";
import { FIXED_RESERVE, Fragment, type LineTarget, putFragment } from "./line-target.js";
import { fillTimestampGap, TIMESTAMP_GAP } from "./timestamp-gap.js";

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
