import { compareCodePoints, compareU64, type MemoryEvent } from "@cg/schema/core";

type OrderedFields = Pick<MemoryEvent, "timestamp_ns" | "action" | "tensor_id">;

/** Spec §11 step 1: timestamp, then `alloc` before `free`, then `tensor_id` in byte (code-point) order. */
export function compareMemoryEvents(left: OrderedFields, right: OrderedFields): number {
  const byTime = compareU64(left.timestamp_ns, right.timestamp_ns);
  if (byTime !== 0) return byTime < 0 ? -1 : 1;
  if (left.action !== right.action) return left.action === "alloc" ? -1 : 1;
  return compareCodePoints(left.tensor_id, right.tensor_id);
}

/**
 * Memory events in analysis order; ties beyond the key keep input order (the sort is stable). Returns
 * the input itself when it is already in order, which is the common case for writer output.
 */
export function sortMemoryEvents<T extends OrderedFields>(events: readonly T[]): readonly T[] {
  for (let index = 1; index < events.length; index++) {
    if (compareMemoryEvents(events[index - 1] as T, events[index] as T) > 0) {
      return [...events].sort(compareMemoryEvents);
    }
  }
  return events;
}
