import { isDigits, putAscii, putDigits, putJsonText } from "./byte-values.js";
import { FIXED_RESERVE, Fragment, type LineTarget, putFragment } from "./line-target.js";

const SPAN_START = new Fragment('{"kind":"span_start","id":"');
const PARENT_ID = new Fragment('","parent_id":"');
const NAME = new Fragment('","name":');
const START_NS = new Fragment(',"start_ns":');
const SPAN_KIND = new Fragment(',"span_kind":');
const STEP = new Fragment(',"step":');
const MEASURED_TRUE = new Fragment(',"measured":true');
const MEASURED_FALSE = new Fragment(',"measured":false');
const SPAN_END = new Fragment('{"kind":"span_end","id":"');
const END_DURATION = new Fragment('","duration_ns":');

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
