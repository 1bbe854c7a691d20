import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareOperatorRows, type OperatorDelta, operatorLabel } from "./operator-compare.js";
import {
  OPERATOR_GROUP_FIELDS,
  OperatorAccumulator,
  type OperatorGroupField,
  type OperatorStats,
  type OperatorTable,
} from "./operator-stats.js";

/** The comparison the obvious way: a delta and a label for every key, one stable sort, then the limit. */
function naiveComparison(baseline: OperatorTable, candidate: OperatorTable, limit: number) {
  const groupBy = baseline.group_by;
  const keyOf = (row: OperatorStats) => JSON.stringify([row.op_name, ...groupBy.map((field) => row[field])]);
  const before = new Map(baseline.operators.map((row) => [keyOf(row), row]));
  const after = new Map(candidate.operators.map((row) => [keyOf(row), row]));
  const rows: { label: string; magnitude: bigint; delta: OperatorDelta }[] = [];
  for (const key of new Set([...before.keys(), ...after.keys()])) {
    const old = before.get(key);
    const now = after.get(key);
    const row = (old ?? now) as OperatorStats;
    const oldTotal = BigInt(old?.total_ns ?? 0);
    const newTotal = BigInt(now?.total_ns ?? 0);
    const number = (value: bigint) =>
      value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
        ? Number(value)
        : value;
    const delta: OperatorDelta = {
      op_name: row.op_name,
      ...Object.fromEntries(groupBy.map((field) => [field, row[field]])),
      status: old === undefined ? "appeared" : now === undefined ? "disappeared" : "both",
      baseline_calls: old?.calls ?? 0,
      candidate_calls: now?.calls ?? 0,
      calls_delta: (now?.calls ?? 0) - (old?.calls ?? 0),
      baseline_total_ns: old?.total_ns ?? 0,
      candidate_total_ns: now?.total_ns ?? 0,
      total_delta_ns: number(newTotal - oldTotal),
      baseline_mean_ns: old?.mean_ns ?? 0,
      candidate_mean_ns: now?.mean_ns ?? 0,
      mean_delta_ns: number(BigInt(now?.mean_ns ?? 0) - BigInt(old?.mean_ns ?? 0)),
    };
    if (old !== undefined && oldTotal > 0n) {
      delta.total_delta_percent = (Number(newTotal - oldTotal) / Number(oldTotal)) * 100;
    }
    const difference = newTotal - oldTotal;
    rows.push({
      label: operatorLabel(row, groupBy),
      magnitude: difference < 0n ? -difference : difference,
      delta,
    });
  }
  rows.sort((left, right) =>
    left.magnitude !== right.magnitude
      ? left.magnitude > right.magnitude
        ? -1
        : 1
      : left.label < right.label
        ? -1
        : left.label > right.label
          ? 1
          : 0,
  );
  const labels = (status: OperatorDelta["status"]) =>
    rows
      .filter((row) => row.delta.status === status)
      .map((row) => row.label)
      .sort((left, right) => (left < right ? -1 : left > right ? 1 : 0));
  return {
    group_by: [...groupBy],
    deltas: rows.slice(0, limit).map((row) => row.delta),
    operator_count: rows.length,
    appeared: labels("appeared"),
    disappeared: labels("disappeared"),
  };
}

describe("compareOperatorRows", () => {
  it("equals a full sort of every joined row for any two tables, grouping and limit", () => {
    // Few distinct values and small durations: many equal deltas, so the tie order is exercised.
    const op = fc.record({
      op_name: fc.constantFrom("mm", "add", "b"),
      span_id: fc.constantFrom("s1", "s2", "é"),
      shape: fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 1 }),
      dtype: fc.constantFrom("f32", "f16"),
      device: fc.constantFrom("cpu", "cuda:0"),
      duration_ns: fc.oneof(fc.integer({ min: 0, max: 3 }), fc.constantFrom(2n ** 53n + 1n, 2n ** 64n - 1n)),
      input_storage_bytes: fc.constant(0),
    });
    const accumulated = (
      ops: Parameters<OperatorAccumulator["addOp"]>[0][],
      groupBy: OperatorGroupField[],
    ) => {
      const accumulator = new OperatorAccumulator(groupBy, {
        percentiles: false,
        pathOf: (spanId) => spanId,
      });
      for (const each of ops) accumulator.addOp(each);
      return accumulator;
    };
    fc.assert(
      fc.property(
        fc.array(op, { maxLength: 120 }),
        fc.array(op, { maxLength: 120 }),
        fc.subarray([...OPERATOR_GROUP_FIELDS]),
        fc.integer({ min: 0, max: 12 }),
        (baselineOps, candidateOps, groupBy, limit) => {
          const baseline = accumulated(baselineOps, groupBy);
          const candidate = accumulated(candidateOps, groupBy);
          expect(compareOperatorRows(baseline.rows(), candidate.rows(), limit)).toStrictEqual(
            naiveComparison(baseline.result(), candidate.result(), limit),
          );
        },
      ),
      { numRuns: 200 },
    );
  });
});
