import { isDigits, putDigits } from "./byte-values.js";
import { FIXED_RESERVE, Fragment, type LineTarget, putFragment } from "./line-target.js";
import type { SpanNamePieces } from "./span-line-pieces.js";

const SPAN_START = new Fragment('{"kind":"span_start","id":"s');
const PARENT_ID = new Fragment('","parent_id":"s');
const SPAN_END = new Fragment('{"kind":"span_end","id":"s');
const END_DURATION = new Fragment('","duration_ns":');

/**
 * The `span_start` line of `spanStartLine` at `pos`: ids `s<serial>`, the parent's `s<parentSerial>`,
 * `name` the span name's cached pieces, `tail` the cached `span_kind`/`measured`/`step` ending (see
 * span-line-pieces.ts). The end offset, or -1 to fall back.
 */
export function putSpanStartLine(
  target: LineTarget,
  pos: number,
  serial: number,
  parentSerial: number,
  name: SpanNamePieces,
  startNs: number,
  tail: Fragment,
): number {
  const bytes = target.bytes;
  const limit = bytes.length - FIXED_RESERVE;
  const nameFragment = name.fragment;
  if (pos > limit || nameFragment === undefined || !isDigits(startNs)) return -1;
  let at = putFragment(target, pos, SPAN_START);
  at = putDigits(bytes, at, serial);
  at = putFragment(target, at, PARENT_ID);
  at = putDigits(bytes, at, parentSerial);
  if (at + nameFragment.length > limit) return -1;
  at = putFragment(target, at, nameFragment);
  at = putDigits(bytes, at, startNs);
  return putFragment(target, at, tail);
}

/** The `span_end` line of `spanEndLine` at `pos`; the end offset, or -1 to fall back. */
export function putSpanEndLine(target: LineTarget, pos: number, serial: number, durationNs: number): number {
  const bytes = target.bytes;
  if (pos > bytes.length - FIXED_RESERVE || !isDigits(durationNs)) return -1;
  let at = putFragment(target, pos, SPAN_END);
  at = putDigits(bytes, at, serial);
  at = putFragment(target, at, END_DURATION);
  at = putDigits(bytes, at, durationNs);
  bytes[at] = 0x7d;
  bytes[at + 1] = 0x0a;
  return at + 2;
}
