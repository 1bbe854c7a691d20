// `spanCosts` and the slowest/heaviest rankings of `queryTrace` over a SpanTable: per-span op
// totals are typed columns filled while streaming, totals and self times are computed children
// first (rows bucketed by depth), and only the `limit` best spans become SpanCost objects, each
// with the same figures, path and order as the document's ranking.
import { normalizeU64, saturateU64, type U64 } from "@cg/schema/core";
import { childRowsUnionLength, intervalsUnionLength } from "./interval-union.js";
import type { SpanCostOptions } from "./span-cost.js";
import type { SpanOpTotals } from "./span-op-totals.js";
import type { SpanTable } from "./span-table.js";
import { IN_CYCLE, type SpanTableStructure } from "./span-table-health.js";

/** An exact sum as a u64 figure: saturated at 2^64 − 1, as the reference's figures are. */
export function u64Figure(value: bigint): U64 {
  return normalizeU64(saturateU64(value));
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** Descending by key, ties by id (as `queryTrace` ranks). */
function before(leftKey: bigint, leftId: string, rightKey: bigint, rightId: string): boolean {
  return leftKey > rightKey || (leftKey === rightKey && leftId < rightId);
}

/** The `limit` best entries seen so far, best first; `offer` rejects most entries with one compare. */
export class TopList<T> {
  readonly #limit: number;
  readonly #entries: { key: bigint; id: string; value: T }[] = [];

  constructor(limit: number) {
    this.#limit = limit;
  }

  /**
   * The last entry's key as a number while the list is full and that key is a safe integer, so
   * `admitsU64` turns away a number without making a bigint of it (once per op on a large trace).
   */
  #floor: number | undefined;

  /** True when an entry with `key` might still enter (ties need the id to decide). */
  admits(key: bigint): boolean {
    const entries = this.#entries;
    if (this.#limit <= 0) return false;
    return entries.length < this.#limit || key >= (entries[entries.length - 1] as { key: bigint }).key;
  }

  /** `admits` of a u64 value as the reader gives it (a number, or a bigint above 2^53). */
  admitsU64(value: U64): boolean {
    const floor = this.#floor;
    if (floor !== undefined && typeof value === "number") return value >= floor;
    return this.admits(BigInt(value));
  }

  /**
   * Where an entry of a u64 `value` would stand against the list now: 1 when it enters whatever its
   * id, 0 when it ties with the last entry (it enters when its id is before `lastId`), -1 when it
   * cannot enter. Lets a caller decide a tie without building the id first.
   */
  standingU64(value: U64): number {
    const entries = this.#entries;
    if (this.#limit <= 0) return -1;
    const last = entries[entries.length - 1];
    if (entries.length < this.#limit || last === undefined) return 1;
    const floor = this.#floor;
    if (floor !== undefined && typeof value === "number") return value > floor ? 1 : value === floor ? 0 : -1;
    const key = BigInt(value);
    return key > last.key ? 1 : key === last.key ? 0 : -1;
  }

  /** The id of the last entry ("" while the list is empty). */
  get lastId(): string {
    return this.#entries[this.#entries.length - 1]?.id ?? "";
  }

  /** True when an entry of a u64 `value` and `id` would enter now (`offer` would keep it). */
  entersU64(value: U64, id: string): boolean {
    const standing = this.standingU64(value);
    return standing > 0 || (standing === 0 && id < this.lastId);
  }

  offer(key: bigint, id: string, value: () => T): void {
    if (this.#limit <= 0) return;
    const entries = this.#entries;
    const last = entries[entries.length - 1];
    if (entries.length >= this.#limit && last !== undefined && !before(key, id, last.key, last.id)) return;
    let at = entries.length;
    while (
      at > 0 &&
      before(key, id, (entries[at - 1] as { key: bigint }).key, (entries[at - 1] as { id: string }).id)
    ) {
      at--;
    }
    entries.splice(at, 0, { key, id, value: value() });
    if (entries.length > this.#limit) entries.pop();
    const floor = entries.length >= this.#limit ? entries[entries.length - 1] : undefined;
    this.#floor = floor !== undefined && floor.key <= MAX_SAFE ? Number(floor.key) : undefined;
  }

  values(): T[] {
    return this.#entries.map((entry) => entry.value);
  }
}

/** Every span's total and self time (as `spanCosts` computes them), by row. */
export function spanTableTotals(
  table: SpanTable,
  structure: SpanTableStructure,
  ops: SpanOpTotals,
  options: SpanCostOptions,
): { total: (row: number) => bigint; selfTime: (row: number) => bigint } {
  const rows = table.size;
  const union = options.compat !== "reference";
  // Children before parents: rows bucketed by depth, deepest first.
  const byDepth = new Int32Array(rows);
  const depthStart = new Int32Array(structure.maxDepth + 2);
  const depth = structure.depth;
  for (let row = 0; row < rows; row++) {
    const level = (depth[row] as number) + 1;
    depthStart[level] = (depthStart[level] as number) + 1;
  }
  for (let level = 0; level <= structure.maxDepth; level++) {
    depthStart[level + 1] = (depthStart[level + 1] as number) + (depthStart[level] as number);
  }
  const fill = depthStart.slice();
  for (let row = 0; row < rows; row++) {
    const level = depth[row] as number;
    byDepth[fill[level] as number] = row;
    fill[level] = (fill[level] as number) + 1;
  }
  const exact =
    numberTotals(table, structure, ops, byDepth, union) ??
    bigintTotals(table, structure, ops, byDepth, union);
  return {
    total: (row) => BigInt(exact.totals[row] as number | bigint),
    selfTime: (row) => BigInt(exact.selfTimes[row] as number | bigint),
  };
}

interface Totals {
  totals: ArrayLike<number | bigint>;
  selfTimes: ArrayLike<number | bigint>;
}

/**
 * Totals and self times in doubles, for the usual trace whose figures stay below 2^53 (exact there);
 * undefined as soon as one does not, and the caller takes the bigint path.
 */
function numberTotals(
  table: SpanTable,
  structure: SpanTableStructure,
  ops: SpanOpTotals,
  byDepth: Int32Array,
  union: boolean,
): Totals | undefined {
  if (table.hasBigValues || ops.hasBigValues) return undefined;
  const { walk, offsets, children } = structure;
  const rows = table.size;
  const totals = new Float64Array(rows);
  const selfTimes = new Float64Array(rows);
  const totalOf = (row: number) => totals[row] as number;
  for (let index = rows - 1; index >= 0; index--) {
    const row = byDepth[index] as number;
    const cycle = walk[row] === IN_CYCLE;
    const from = cycle ? 0 : (offsets[row] as number);
    const to = cycle ? 0 : (offsets[row + 1] as number);
    let total = table.durationNumber(row);
    if (total === 0) {
      total = Number(ops.ns(row));
      for (let at = from; at < to; at++) total += totals[children[at] as number] as number;
    }
    let covered = 0;
    if (union) {
      covered = childRowsUnionLength(table, children, from, to, totalOf);
    } else {
      for (let at = from; at < to; at++) covered += totals[children[at] as number] as number;
    }
    if (total > Number.MAX_SAFE_INTEGER || covered > Number.MAX_SAFE_INTEGER) return undefined;
    totals[row] = total;
    selfTimes[row] = total > covered ? total - covered : 0;
  }
  return { totals, selfTimes };
}

/** The exact path for traces with figures past 2^53 (rare): one bigint per span. */
function bigintTotals(
  table: SpanTable,
  structure: SpanTableStructure,
  ops: SpanOpTotals,
  byDepth: Int32Array,
  union: boolean,
): Totals {
  const { walk, offsets, children } = structure;
  const rows = table.size;
  const totals: bigint[] = new Array<bigint>(rows);
  const selfTimes: bigint[] = new Array<bigint>(rows);
  for (let index = rows - 1; index >= 0; index--) {
    const row = byDepth[index] as number;
    const cycle = walk[row] === IN_CYCLE;
    const from = cycle ? 0 : (offsets[row] as number);
    const to = cycle ? 0 : (offsets[row + 1] as number);
    let total = BigInt(table.durationU64(row));
    if (total === 0n) {
      total = ops.ns(row);
      for (let at = from; at < to; at++) total += totals[children[at] as number] as bigint;
    }
    totals[row] = total;
    const covered = coveredByChildrenBig(table, children, from, to, totals, union);
    selfTimes[row] = total > covered ? total - covered : 0n;
  }
  return { totals, selfTimes };
}

function coveredByChildrenBig(
  table: SpanTable,
  children: Int32Array,
  from: number,
  to: number,
  totals: bigint[],
  union: boolean,
): bigint {
  if (!union) {
    let sum = 0n;
    for (let at = from; at < to; at++) sum += totals[children[at] as number] as bigint;
    return sum;
  }
  const intervals: [bigint, bigint][] = [];
  for (let at = from; at < to; at++) {
    const row = children[at] as number;
    const start = BigInt(table.startU64(row));
    intervals.push([start, start + (totals[row] as bigint)]);
  }
  return intervalsUnionLength(intervals);
}

/** 1 for the measured spans and everything below them. */
export function measuredSubtree(table: SpanTable, offsets: Int32Array, children: Int32Array): Uint8Array {
  const inside = new Uint8Array(table.size);
  const stack: number[] = [];
  for (let row = 0; row < table.size; row++) if (table.measured(row)) stack.push(row);
  while (stack.length > 0) {
    const row = stack.pop() as number;
    if (inside[row] === 1) continue;
    inside[row] = 1;
    for (let at = offsets[row] as number; at < (offsets[row + 1] as number); at++)
      stack.push(children[at] as number);
  }
  return inside;
}

/** Names from the topmost ancestor down to the span, joined with `/` (a cycle stops the walk). */
export function spanPath(table: SpanTable, row: number): string {
  const chain: number[] = [];
  const seen = new Set<number>();
  let current = row;
  while (current >= 0 && !seen.has(current)) {
    seen.add(current);
    chain.push(current);
    current = table.parent(current);
  }
  // One join: a flat string, not a chain of concatenations held as one string per level.
  const names = new Array<string>(chain.length);
  for (let index = 0; index < chain.length; index++) {
    names[chain.length - 1 - index] = table.name(chain[index] as number);
  }
  return names.join("/");
}
