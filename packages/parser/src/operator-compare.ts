// Per-operator deltas between two traces: what got slower, what runs more often, and which
// operators appeared or disappeared (a fused kernel replacing two, a cast that crept in).
import type { OperatorStats, OperatorTable } from "./operator-stats.js";

export interface OperatorDelta {
  op_name: string;
  /** "appeared": only in the candidate; "disappeared": only in the baseline. */
  status: "both" | "appeared" | "disappeared";
  baseline_calls: number;
  candidate_calls: number;
  calls_delta: number;
  baseline_total_ns: number;
  candidate_total_ns: number;
  total_delta_ns: number;
  /** Relative to the baseline total; absent when that is 0. */
  total_delta_percent?: number;
  baseline_mean_ns: number;
  candidate_mean_ns: number;
  mean_delta_ns: number;
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
      total_delta_ns: (now?.total_ns ?? 0) - (old?.total_ns ?? 0),
      baseline_mean_ns: old?.mean_ns ?? 0,
      candidate_mean_ns: now?.mean_ns ?? 0,
      mean_delta_ns: (now?.mean_ns ?? 0) - (old?.mean_ns ?? 0),
    };
    if (old !== undefined && old.total_ns > 0)
      delta.total_delta_percent = (delta.total_delta_ns / old.total_ns) * 100;
    deltas.push(delta);
  }
  const byName = (left: string, right: string): number => (left < right ? -1 : left > right ? 1 : 0);
  deltas.sort(
    (left, right) =>
      Math.abs(right.total_delta_ns) - Math.abs(left.total_delta_ns) || byName(left.op_name, right.op_name),
  );
  return {
    deltas: deltas.slice(0, limit),
    operator_count: names.size,
    appeared: appeared.sort(byName),
    disappeared: disappeared.sort(byName),
  };
}
