import { storageBytes } from "@cg/memory";
import type { TensorRecord } from "../record-inputs.js";
import { putJsonString, putU64 } from "./byte-values.js";
import { putCategoryEnd } from "./category-bytes.js";
import { putTensorLayout, STORAGE, TENSOR_ID } from "./key-fragments.js";
import { FIXED_RESERVE, Fragment, type LineTarget, putFragment } from "./line-target.js";

const TENSOR_START = new Fragment('{"kind":"tensor","span_id":');
const REQUIRES_GRAD_TRUE = new Fragment(',"requires_grad":true');
const REQUIRES_GRAD_FALSE = new Fragment(',"requires_grad":false');

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
  const shape = record.shape;
  const dtype = record.dtype;
  at = putTensorLayout(target, at, limit, shape, dtype, record.device);
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
