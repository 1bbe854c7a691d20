// Per-operator deltas between two traces: what got slower, what runs more often, and which
// operators appeared or disappeared (a fused kernel replacing two, a cast that crept in).
import type { U64 } from "@cg/schema/core";
import type { OperatorGroupField, OperatorRows, OperatorStats, OperatorTable } from "./operator-stats.js";
import { signedInteger } from "./signed-integer.js";

/** A difference of two u64 values: a number when it fits, else a bigint. */
export type SignedCount = number | bigint;

const big = (value: U64 | undefined): bigint => (value === undefined ? 0n : BigInt(value));

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
  return compareOperatorRows(tableRows(baseline), tableRows(candidate), limit);
}

/** The rows of a built table, read in place. */
function tableRows(table: OperatorTable): OperatorRows {
  const rows = table.operators;
  return {
    group_by: table.group_by,
    size: rows.length,
    fields: (index) => rows[index] as OperatorStats,
    calls: (index) => (rows[index] as OperatorStats).calls,
    total: (index) => (rows[index] as OperatorStats).total_ns,
  };
}

/** A joined row: its index on each side (-1 where absent) and its ranking figure. */
interface Ranked {
  before: number;
  after: number;
  magnitude: bigint;
  label: string;
  /** Order of first appearance (baseline rows, then the candidate's new ones): the last tie-break. */
  sequence: number;
}

const byName = (left: string, right: string): number => (left < right ? -1 : left > right ? 1 : 0);

// Larger |total delta| first, then label, then first appearance (as the stable sort of every row).
const ranksBefore = (left: Ranked, right: Ranked): boolean =>
  left.magnitude !== right.magnitude
    ? left.magnitude > right.magnitude
    : left.label !== right.label
      ? left.label < right.label
      : left.sequence < right.sequence;

/**
 * Compares two tables' rows: joined by group key, ranked by |total delta| with only the best `limit`
 * kept while joining; delta objects are built for those alone (labels also for rows on one side).
 */
export function compareOperatorRows(
  baseline: OperatorRows,
  candidate: OperatorRows,
  limit = 50,
): OperatorComparison {
  const groupBy = baseline.group_by;
  const keyOf = (row: GroupFields): string =>
    groupBy.reduce((key, field) => `${key}\u0000${row[field] ?? ""}`, row.op_name);
  const baselineIndex = new Map<string, number>();
  for (let index = 0; index < baseline.size; index++) {
    const key = keyOf(baseline.fields(index));
    if (!baselineIndex.has(key)) baselineIndex.set(key, index);
  }
  // The candidate row matching each baseline row (-1: none), and the candidate's new rows. A table
  // holds each key once (rows are distinct group tuples).
  const match = new Int32Array(baseline.size).fill(-1);
  const appearedRows: number[] = [];
  for (let index = 0; index < candidate.size; index++) {
    const at = baselineIndex.get(keyOf(candidate.fields(index)));
    if (at === undefined) appearedRows.push(index);
    else match[at] = index;
  }
  baselineIndex.clear();

  const bound = Math.max(0, limit);
  const kept: Ranked[] = [];
  const appeared: string[] = [];
  const disappeared: string[] = [];
  let sequence = 0;
  // Kept sorted best first; a row enters only when it beats the worst kept one.
  const offer = (before: number, after: number): void => {
    const total =
      big(after < 0 ? undefined : candidate.total(after)) -
      big(before < 0 ? undefined : baseline.total(before));
    const magnitude = total < 0n ? -total : total;
    const side = (): GroupFields => (before >= 0 ? baseline.fields(before) : candidate.fields(after));
    const entry: Ranked = { before, after, magnitude, label: "", sequence: sequence++ };
    if (before < 0 || after < 0) {
      entry.label = operatorLabel(side(), groupBy);
      (before < 0 ? appeared : disappeared).push(entry.label);
    }
    const worst = kept[kept.length - 1];
    const full = kept.length >= bound;
    if (full && (worst === undefined || magnitude < worst.magnitude)) return;
    if (entry.label === "") entry.label = operatorLabel(side(), groupBy);
    if (full && worst !== undefined && !ranksBefore(entry, worst)) return;
    let place = kept.length;
    while (place > 0 && ranksBefore(entry, kept[place - 1] as Ranked)) place--;
    kept.splice(place, 0, entry);
    if (kept.length > bound) kept.pop();
  };
  for (let index = 0; index < baseline.size; index++) offer(index, match[index] as number);
  for (const index of appearedRows) offer(-1, index);

  const deltas = kept.map(({ before, after }) => delta(baseline, candidate, before, after, groupBy));
  return {
    group_by: [...groupBy],
    deltas,
    operator_count: sequence,
    appeared: appeared.sort(byName),
    disappeared: disappeared.sort(byName),
  };
}

type GroupFields = Pick<OperatorStats, "op_name" | OperatorGroupField>;

/** The delta of one joined row (`before` / `after`: its index on each side, -1 where absent). */
function delta(
  baseline: OperatorRows,
  candidate: OperatorRows,
  before: number,
  after: number,
  groupBy: readonly OperatorGroupField[],
): OperatorDelta {
  const row = before >= 0 ? baseline.fields(before) : candidate.fields(after);
  const oldCalls = before >= 0 ? baseline.calls(before) : 0;
  const newCalls = after >= 0 ? candidate.calls(after) : 0;
  const oldTotal = before >= 0 ? baseline.total(before) : 0;
  const newTotal = after >= 0 ? candidate.total(after) : 0;
  const mean = (total: U64, calls: number): U64 =>
    calls === 0 ? 0 : (signedInteger(big(total) / BigInt(calls)) as U64);
  const oldMean = mean(oldTotal, oldCalls);
  const newMean = mean(newTotal, newCalls);
  const fields: Partial<Pick<OperatorDelta, OperatorGroupField>> = {};
  for (const field of groupBy) if (row[field] !== undefined) fields[field] = row[field];
  const result: OperatorDelta = {
    op_name: row.op_name,
    ...fields,
    status: before < 0 ? "appeared" : after < 0 ? "disappeared" : "both",
    baseline_calls: oldCalls,
    candidate_calls: newCalls,
    calls_delta: newCalls - oldCalls,
    baseline_total_ns: oldTotal,
    candidate_total_ns: newTotal,
    total_delta_ns: signedInteger(big(newTotal) - big(oldTotal)),
    baseline_mean_ns: oldMean,
    candidate_mean_ns: newMean,
    mean_delta_ns: signedInteger(big(newMean) - big(oldMean)),
  };
  if (before >= 0 && big(oldTotal) > 0n) {
    result.total_delta_percent = (Number(big(newTotal) - big(oldTotal)) / Number(oldTotal)) * 100;
  }
  return result;
}
