// The length covered by a union of intervals (overlaps counted once), which the span checks and the
// self times need: a double path over child rows of the span table, and the exact bigint path.
import type { SpanTable } from "./span-table.js";

/**
 * Length of the union of the intervals [start, start + lengthOf(row)) of the rows children[from..to).
 * Children usually arrive in start order; otherwise a copy of their rows is sorted by start. Infinity
 * when an end passes 2^53 (not exact in a double): the caller then takes the bigint path.
 */
export function childRowsUnionLength(
  table: SpanTable,
  children: Int32Array,
  from: number,
  to: number,
  lengthOf: (row: number) => number,
): number {
  if (from === to) return 0;
  let sorted = true;
  for (let at = from + 1; at < to && sorted; at++) {
    if (table.startNumber(children[at] as number) < table.startNumber(children[at - 1] as number))
      sorted = false;
  }
  const order = sorted
    ? children.subarray(from, to)
    : children.slice(from, to).sort((left, right) => table.startNumber(left) - table.startNumber(right));
  // In start order, each interval adds only its part past the furthest end so far (`reach`):
  // everything from the current run's start up to `reach` is already covered.
  let covered = 0;
  let reach = table.startNumber(order[0] as number);
  for (let index = 0; index < order.length; index++) {
    const row = order[index] as number;
    const start = table.startNumber(row);
    const end = start + lengthOf(row);
    // An end past 2^53 is rounded in a double even when start and length are exact.
    if (end > Number.MAX_SAFE_INTEGER) return Number.POSITIVE_INFINITY;
    const uncovered = Math.max(start, reach);
    if (end > uncovered) {
      covered += end - uncovered;
      reach = end;
    }
  }
  return covered;
}

/** Length of the union of the [start, end) intervals, exact; sorts `intervals` in place. */
export function intervalsUnionLength(intervals: [bigint, bigint][]): bigint {
  if (intervals.length === 0) return 0n;
  intervals.sort((left, right) => (left[0] < right[0] ? -1 : left[0] > right[0] ? 1 : 0));
  let covered = 0n;
  let reach = (intervals[0] as [bigint, bigint])[0];
  for (const [start, end] of intervals) {
    // biome-ignore lint/complexity/useMathMinMax: bigints; Math.max does not take them
    const uncovered = start > reach ? start : reach;
    if (end > uncovered) {
      covered += end - uncovered;
      reach = end;
    }
  }
  return covered;
}
