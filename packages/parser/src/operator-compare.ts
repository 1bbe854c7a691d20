// Per-operator deltas between two traces: what got slower, what runs more often, and which
// operators appeared or disappeared (a fused kernel replacing two, a cast that crept in).
import type { U64 } from "@cg/schema";
import type { OperatorStats, OperatorTable } from "./operator-stats.js";

/** A difference of two u64 values: a number when it fits, else a bigint. */
export type SignedCount = number | bigint;

const big = (value: U64 | undefined): bigint => (value === undefined ? 0n : BigInt(value));
const signed = (value: bigint): SignedCount =>
  value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(value)
    : value;

export interface OperatorDelta {
  op_name: string;
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
  /** By absolute total delta, descending; ties by op name; at most `limit`. */
  deltas: OperatorDelta[];
  /** Operators in either trace (rows before the limit). */
  operator_count: number;
  appeared: string[];
  disappeared: string[];
}

/** Compares two operator tables grouped by op name only. */
export function compareOperators(
  baseline: OperatorTable,
  candidate: OperatorTable,
  limit = 50,
): OperatorComparison {
  const before = new Map<string, OperatorStats>(baseline.operators.map((row) => [row.op_name, row]));
  const after = new Map<string, OperatorStats>(candidate.operators.map((row) => [row.op_name, row]));
  const names = new Set([...before.keys(), ...after.keys()]);
  const deltas: OperatorDelta[] = [];
  const appeared: string[] = [];
  const disappeared: string[] = [];
  for (const name of names) {
    const old = before.get(name);
    const now = after.get(name);
    const status = old === undefined ? "appeared" : now === undefined ? "disappeared" : "both";
    if (status === "appeared") appeared.push(name);
    if (status === "disappeared") disappeared.push(name);
    const delta: OperatorDelta = {
      op_name: name,
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
    return a > b ? -1 : a < b ? 1 : byName(left.op_name, right.op_name);
  });
  return {
    deltas: deltas.slice(0, limit),
    operator_count: names.size,
    appeared: appeared.sort(byName),
    disappeared: disappeared.sort(byName),
  };
}
