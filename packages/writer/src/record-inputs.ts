import type { EventLayouts } from "@cg/schema/core";
import type { RecordOfLayout } from "./record-of-layout.js";

// Inputs of the record methods: camelCase option objects derived from the wire layout table; the
// writer maps them to the snake_case wire keys. Optional fields also accept an explicit `undefined`.

/**
 * `recordOp` input (spec §13.4 "op record"): every key of an `op` line but the span id, which the
 * writer takes from the span. `timestampNs`: nanoseconds since capture start; absent means "now",
 * an explicit 0 is written as 0 (spec §17 Q10). `storageBytes`: the explicit output footprint;
 * absent means derived from shape and dtype (spec §15.4).
 */
export type OpRecord = RecordOfLayout<EventLayouts["op"], "span_id">;

/** `recordTensor` input (spec §13.4 "tensor record"): every key of a `tensor` line but the span id. */
export type TensorRecord = RecordOfLayout<EventLayouts["tensor"], "span_id">;

/**
 * `recordMemoryAlloc` / `recordMemoryFree` input (spec §13.4 "memory record"): every key of a
 * `memory` line but the span id and the action (the method says which). `bytes`: allocated or
 * freed, written as given (never derived). `timestampNs`: absent means "now"; 0 is allowed.
 */
export type MemoryRecord = RecordOfLayout<EventLayouts["memory"], "span_id" | "action", "timestamp_ns">;
