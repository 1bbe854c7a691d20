// Per-operator deltas between two traces: what got slower, what runs more often, and which
// operators appeared or disappeared (a fused kernel replacing two, a cast that crept in).
import type { U64 } from "@cg/schema";
import type { OperatorGroupField, OperatorStats, OperatorTable } from "./operator-stats.js";

/** A difference of two u64 values: a number when it fits, else a bigint. */
export type SignedCount = number | bigint;

const big = (value: U64 | undefined): bigint => (value === undefined ? 0n : BigInt(value));
const signed = (value: bigint): SignedCount =>
  value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(value)
    : value;

export interface OperatorDelta {
  op_name: string;
  /** Present when the tables are grouped by these fields, as in `OperatorStats`. */
  shape?: string;
  dtype?: string;
  device?: string;
  path?: string;
  /** "appeared": only in the candidate; "disappeared": only in the baseline. */
  status: "both" | "appeared" | "disappeared";
  baseline_calls: number;
  candidate_calls: number;
  calls_delta: number;
  baseline_total_ns: U64;
  candidate_total_ns: U64;
  total_delta_ns: SignedCount;
  /** Relative to the baseline total; absent when that is 0. */
  total_delta_percent?: number;
  baseline_mean_ns: U64;
  candidate_mean_ns: U64;
  mean_delta_ns: SignedCount;
}

export interface OperatorComparison {
  /** The fields rows are split by besides the op name (as `query --kind ops --group-by`). */
  group_by: OperatorGroupField[];
  /** By absolute total delta, descending; ties by op name; at most `limit`. */
  deltas: OperatorDelta[];
  /** Operators in either trace (rows before the limit). */
  operator_count: number;
  /** Rows only in the candidate / only in the baseline, by `operatorLabel`. */
  appeared: string[];
  disappeared: string[];
}

/** `op_name`, followed by the group fields' values when grouped: `matmul (shape [2, 2], dtype f32)`. */
export function operatorLabel(
  row: Pick<OperatorStats, OperatorGroupField | "op_name">,
  groupBy: readonly OperatorGroupField[],
): string {
  if (groupBy.length === 0) return row.op_name;
  return `${row.op_name} (${groupBy.map((field) => `${field} ${row[field] ?? ""}`).join(", ")})`;
}

/** Compares two operator tables grouped the same way (by op name, and the baseline's `group_by`). */
export function compareOperators(
  baseline: OperatorTable,
  candidate: OperatorTable,
  limit = 50,
): OperatorComparison {
  const groupBy = baseline.group_by;
  const keyOf = (row: OperatorStats): string =>
    groupBy.reduce((key, field) => `${key}\u0000${row[field] ?? ""}`, row.op_name);
  const before = new Map<string, OperatorStats>(baseline.operators.map((row) => [keyOf(row), row]));
  const after = new Map<string, OperatorStats>(candidate.operators.map((row) => [keyOf(row), row]));
  const keys = new Set([...before.keys(), ...after.keys()]);
  const deltas: (OperatorDelta & { label: string })[] = [];
  const appeared: string[] = [];
  const disappeared: string[] = [];
  for (const key of keys) {
    const old = before.get(key);
    const now = after.get(key);
    const row = (old ?? now) as OperatorStats;
    const label = operatorLabel(row, groupBy);
    const status = old === undefined ? "appeared" : now === undefined ? "disappeared" : "both";
    if (status === "appeared") appeared.push(label);
    if (status === "disappeared") disappeared.push(label);
    const fields: Partial<Pick<OperatorDelta, OperatorGroupField>> = {};
    for (const field of groupBy) if (row[field] !== undefined) fields[field] = row[field];
    const delta: OperatorDelta & { label: string } = {
      label,
      op_name: row.op_name,
      ...fields,
      status,
      baseline_calls: old?.calls ?? 0,
      candidate_calls: now?.calls ?? 0,
      calls_delta: (now?.calls ?? 0) - (old?.calls ?? 0),
      baseline_total_ns: old?.total_ns ?? 0,
      candidate_total_ns: now?.total_ns ?? 0,
      total_delta_ns: signed(big(now?.total_ns) - big(old?.total_ns)),
      baseline_mean_ns: old?.mean_ns ?? 0,
      candidate_mean_ns: now?.mean_ns ?? 0,
      mean_delta_ns: signed(big(now?.mean_ns) - big(old?.mean_ns)),
    };
    if (old !== undefined && big(old.total_ns) > 0n) {
      delta.total_delta_percent =
        (Number(big(now?.total_ns) - big(old.total_ns)) / Number(old.total_ns)) * 100;
    }
    deltas.push(delta);
  }
  const byName = (left: string, right: string): number => (left < right ? -1 : left > right ? 1 : 0);
  const magnitude = (value: SignedCount): bigint => {
    const exact = BigInt(value);
    return exact < 0n ? -exact : exact;
  };
  deltas.sort((left, right) => {
    const a = magnitude(left.total_delta_ns);
    const b = magnitude(right.total_delta_ns);
    return a > b ? -1 : a < b ? 1 : byName(left.label, right.label);
  });
  return {
    group_by: [...groupBy],
    deltas: deltas.slice(0, limit).map(({ label: _label, ...delta }) => delta),
    operator_count: keys.size,
    appeared: appeared.sort(byName),
    disappeared: disappeared.sort(byName),
  };
}
