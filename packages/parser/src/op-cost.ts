// An op as `queryTrace` lists it: a graph node with its own cost. Both the document queries and the
// streaming rankings build it, so it lives apart from either.
import type { OpEvent, U64 } from "@cg/schema/core";

/** An op as a graph node: id `<span_id>/op/<n>` with n its 0-based order within its span. */
export interface OpCost {
  id: string;
  span_id: string;
  op_name: string;
  device: string;
  dtype: string;
  /** An op's self time is its duration. */
  self_ns: U64;
  storage_bytes: U64;
  input_storage_bytes: U64;
  timestamp_ns: U64;
}

/** An op as `queryTrace` lists it. */
export function opCost(op: OpEvent & { storage_bytes: U64 }, ordinal: number): OpCost {
  return {
    id: `${op.span_id}/op/${ordinal}`,
    span_id: op.span_id,
    op_name: op.op_name,
    device: op.device,
    dtype: op.dtype,
    self_ns: op.duration_ns,
    storage_bytes: op.storage_bytes,
    input_storage_bytes: op.input_storage_bytes,
    timestamp_ns: op.timestamp_ns,
  };
}
