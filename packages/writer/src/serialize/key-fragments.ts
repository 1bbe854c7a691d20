// Constant pieces of the byte fast path's lines, each a key as the canonical encoder writes it
// (spec §2.5: key order is the schema's; line-bytes tests compare every line with the encoder's).
import { putJsonString, putShape } from "./byte-values.js";
import { Fragment, type LineTarget, putFragment } from "./line-target.js";

export const OP_NAME = new Fragment(',"op_name":');
export const SHAPE = new Fragment(',"shape":');
export const DTYPE = new Fragment(',"dtype":');
export const DEVICE = new Fragment(',"device":');
export const STORAGE = new Fragment(',"storage_bytes":');
export const TENSOR_ID = new Fragment(',"tensor_id":');
export const SPAN_ID = new Fragment(',"span_id":');

/** `,"shape":[…],"dtype":"…","device":"…"` as op and tensor lines carry it; -1 when not taken. */
export function putTensorLayout(
  target: LineTarget,
  pos: number,
  limit: number,
  shape: unknown,
  dtype: unknown,
  device: unknown,
): number {
  const bytes = target.bytes;
  let at = putFragment(target, pos, SHAPE);
  at = putShape(bytes, at, limit, shape);
  if (at < 0) return -1;
  at = putFragment(target, at, DTYPE);
  at = putJsonString(bytes, at, limit, dtype);
  if (at < 0) return -1;
  at = putFragment(target, at, DEVICE);
  return putJsonString(bytes, at, limit, device);
}
