import { compareCodePoints, compareU64, type MemoryEvent, type U64 } from "@cg/schema/core";

type OrderedFields = Pick<MemoryEvent, "timestamp_ns" | "action" | "tensor_id">;

/**
 * Spec §11 step 1 past the timestamp, for two events of one timestamp: `alloc` before `free`, then
 * `tensor_id` in byte (code-point) order. 0 when both keys tie (file order decides then).
 */
export function compareMemoryTies(
  leftAlloc: boolean,
  leftTensorId: string,
  rightAlloc: boolean,
  rightTensorId: string,
): number {
  if (leftAlloc !== rightAlloc) return leftAlloc ? -1 : 1;
  return leftTensorId === rightTensorId ? 0 : compareCodePoints(leftTensorId, rightTensorId);
}

/**
 * Spec §11 step 1, the analysis order of memory events, from their values: timestamp, then
 * `compareMemoryTies`. The one statement of the rule: events, the streaming reorder window and the
 * CLI's external sort all compare through it (file order breaks what is left).
 */
export function compareMemoryOrder(
  leftTime: U64,
  leftAlloc: boolean,
  leftTensorId: string,
  rightTime: U64,
  rightAlloc: boolean,
  rightTensorId: string,
): number {
  const byTime = compareU64(leftTime, rightTime);
  if (byTime !== 0) return byTime < 0 ? -1 : 1;
  return compareMemoryTies(leftAlloc, leftTensorId, rightAlloc, rightTensorId);
}

/** `compareMemoryOrder` of two memory events. */
export function compareMemoryEvents(left: OrderedFields, right: OrderedFields): number {
  return compareMemoryOrder(
    left.timestamp_ns,
    left.action === "alloc",
    left.tensor_id,
    right.timestamp_ns,
    right.action === "alloc",
    right.tensor_id,
  );
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
