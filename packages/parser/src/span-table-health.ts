// Steps 1–5 of spec §12.1 over a SpanTable, for a stream and (folded into one) a document alike:
// issues in span id order, counts and depths. Children are indexed in compressed rows (two
// Int32Arrays), depths and walk states are typed arrays, and only the spans that carry an issue are
// sorted by id, so a clean trace of 10 million spans costs about 17 bytes per span here and no sort.
import { saturateU64 } from "@cg/schema/core";
import { type HealthIssue, type HealthOptions, healthError, type SpanCounts } from "./health-issue.js";
import { childRowsUnionLength, intervalsUnionLength } from "./interval-union.js";
import { MISSING_PARENT, NO_PARENT, type SpanTable } from "./span-table.js";

export interface SpanTableStructure {
  counts: SpanCounts;
  /** Deepest summary depth (spec §10). */
  maxDepth: number;
  /** Summary depth per row. */
  depth: Int32Array;
  /** Per row: IN_CYCLE for spans whose parent chain revisits a span. */
  walk: Uint8Array;
  /** Children of row r: children[offsets[r] .. offsets[r + 1]), in row order. */
  offsets: Int32Array;
  children: Int32Array;
}

const UNKNOWN = 0;
const VISITING = 1;
const DONE = 2;
export const IN_CYCLE = 3;

/** Appends the span structure issues of `table` to `issues`, in the order of the document checks. */
export function spanTableIssues(
  table: SpanTable,
  options: HealthOptions,
  issues: HealthIssue[],
): SpanTableStructure {
  table.resolveParents();
  const rows = table.size;
  const counts: SpanCounts = { roots: 0, measured: 0, closed: 0, forward: 0, backward: 0, optimizer: 0 };
  for (let row = 0; row < rows; row++) {
    if (table.parent(row) === NO_PARENT) counts.roots++;
    if (table.measured(row)) counts.measured++;
    if (table.closed(row)) counts.closed++;
    const step = table.step(row);
    if (step === "forward") counts.forward++;
    else if (step === "backward") counts.backward++;
    else if (step === "optimizer") counts.optimizer++;
  }
  if (counts.roots !== 1)
    issues.push(healthError("root_count", `expected exactly one root span, found ${counts.roots}`));
  if (counts.measured !== 1) {
    issues.push(
      healthError("measurement_count", `expected exactly one measured region, found ${counts.measured}`),
    );
  }

  const state = walkDepths(table);
  const maxDepth = state.maxDepth;

  // Per-span checks: spans with an issue, then sorted by id, as the document walks them.
  const flagged: number[] = [];
  for (let row = 0; row < rows; row++) {
    const parent = table.parent(row);
    if (
      !table.closed(row) ||
      parent === MISSING_PARENT ||
      state.walk[row] === IN_CYCLE ||
      (parent >= 0 && outsideParent(table, row, parent))
    ) {
      flagged.push(row);
    }
  }
  flagged.sort((left, right) => table.ids.compare(left, right));
  for (const row of flagged) {
    const id = table.ids.valueAt(row);
    if (!table.closed(row)) issues.push(healthError("open_span", `span \`${id}\` was not closed`, id));
    const parent = table.parent(row);
    if (parent === MISSING_PARENT) {
      const parentId = table.missingParents.get(row) as string;
      issues.push(
        healthError("unknown_parent", `span \`${id}\` refers to missing parent \`${parentId}\``, id),
      );
    } else if (parent >= 0 && outsideParent(table, row, parent)) {
      const start = BigInt(table.startU64(row));
      const parentStart = BigInt(table.startU64(parent));
      issues.push(
        healthError(
          "child_outside_parent",
          `span \`${id}\` interval ${start}..${end(table, row)} is outside parent \`${table.ids.valueAt(parent)}\` interval ${parentStart}..${end(table, parent)}`,
          id,
        ),
      );
    }
    if (state.walk[row] === IN_CYCLE) {
      issues.push(healthError("span_cycle", `span \`${id}\` participates in a parent cycle`, id));
    }
  }

  // Children coverage per parent.
  const { offsets, children } = childRows(table);
  const useUnion = options.compat !== "reference";
  const exceeding: { row: number; covered: bigint }[] = [];
  for (let row = 0; row < rows; row++) {
    const from = offsets[row] as number;
    const to = offsets[row + 1] as number;
    if (from === to) continue;
    const covered = useUnion
      ? unionLengthOf(table, children, from, to)
      : durationSum(table, children, from, to);
    if (covered > BigInt(table.durationU64(row))) exceeding.push({ row, covered });
  }
  exceeding.sort((left, right) => table.ids.compare(left.row, right.row));
  for (const { row, covered } of exceeding) {
    const id = table.ids.valueAt(row);
    issues.push(
      healthError(
        "children_exceed_parent",
        `children of span \`${id}\` total ${covered} ns, exceeding its ${table.durationU64(row)} ns duration`,
        id,
      ),
    );
  }
  return { counts, maxDepth, depth: state.depth, walk: state.walk, offsets, children };
}

function end(table: SpanTable, row: number): bigint {
  return saturateU64(BigInt(table.startU64(row)) + BigInt(table.durationU64(row)));
}

function outsideParent(table: SpanTable, row: number, parent: number): boolean {
  if (!table.hasBigValues) {
    const start = table.startNumber(row);
    const parentStart = table.startNumber(parent);
    // Sums of two safe integers are exact up to 2^53 and ordered correctly beyond it only roughly:
    // fall back to bigints when a sum leaves the safe range.
    const childEnd = start + table.durationNumber(row);
    const parentEnd = parentStart + table.durationNumber(parent);
    if (childEnd <= Number.MAX_SAFE_INTEGER && parentEnd <= Number.MAX_SAFE_INTEGER) {
      return start < parentStart || childEnd > parentEnd;
    }
  }
  return BigInt(table.startU64(row)) < BigInt(table.startU64(parent)) || end(table, row) > end(table, parent);
}

/** Depth of every span and cycle membership (iterative, memoised: deep chains cost no stack). */
function walkDepths(table: SpanTable): { walk: Uint8Array; depth: Int32Array; maxDepth: number } {
  const rows = table.size;
  const walk = new Uint8Array(rows);
  const depth = new Int32Array(rows);
  const path: number[] = [];
  let maxDepth = 0;
  for (let start = 0; start < rows; start++) {
    if (walk[start] !== UNKNOWN) continue;
    path.length = 0;
    let current = start;
    let tailDepth = 0;
    let tailCycle = false;
    while (true) {
      if (current === NO_PARENT) break;
      if (current === MISSING_PARENT) {
        tailDepth = 1; // a link to a missing span counts as one level (spec §10)
        break;
      }
      const seen = walk[current] as number;
      if (seen === DONE || seen === IN_CYCLE) {
        tailDepth = (depth[current] as number) + 1;
        tailCycle = seen === IN_CYCLE;
        break;
      }
      if (seen === VISITING) {
        tailCycle = true;
        break;
      }
      walk[current] = VISITING;
      path.push(current);
      current = table.parent(current);
    }
    if (tailCycle) {
      for (const row of path) {
        walk[row] = IN_CYCLE;
        depth[row] = cycleDepth(table, row);
        if ((depth[row] as number) > maxDepth) maxDepth = depth[row] as number;
      }
      continue;
    }
    let next = path.length === 0 ? 0 : tailDepth;
    for (let index = path.length - 1; index >= 0; index--) {
      const row = path[index] as number;
      const value = table.parent(row) === NO_PARENT ? 0 : next;
      depth[row] = value;
      walk[row] = DONE;
      if (value > maxDepth) maxDepth = value;
      next = value + 1;
    }
  }
  return { walk, depth, maxDepth };
}

/** The reference walk for spans whose chain reaches a cycle: count links until a span repeats. */
function cycleDepth(table: SpanTable, row: number): number {
  const seen = new Set<number>();
  let count = 0;
  let current = table.parent(row);
  while (current !== NO_PARENT && !seen.has(current)) {
    seen.add(current);
    count++;
    if (current === MISSING_PARENT) break;
    current = table.parent(current);
  }
  return count;
}

/** Children of each row in compressed form: children[offsets[r] .. offsets[r + 1]) in row order. */
function childRows(table: SpanTable): { offsets: Int32Array; children: Int32Array } {
  const rows = table.size;
  const offsets = new Int32Array(rows + 1);
  for (let row = 0; row < rows; row++) {
    const parent = table.parent(row);
    if (parent >= 0) offsets[parent + 1] = (offsets[parent + 1] as number) + 1;
  }
  for (let row = 0; row < rows; row++)
    offsets[row + 1] = (offsets[row + 1] as number) + (offsets[row] as number);
  const fill = offsets.slice(0, rows);
  const children = new Int32Array(offsets[rows] as number);
  for (let row = 0; row < rows; row++) {
    const parent = table.parent(row);
    if (parent >= 0) {
      const at = fill[parent] as number;
      children[at] = row;
      fill[parent] = at + 1;
    }
  }
  return { offsets, children };
}

function durationSum(table: SpanTable, children: Int32Array, from: number, to: number): bigint {
  let total = 0;
  let big = 0n;
  for (let index = from; index < to; index++) {
    const duration = table.durationU64(children[index] as number);
    if (typeof duration === "bigint") big += duration;
    else if (total > Number.MAX_SAFE_INTEGER - duration) {
      big += BigInt(total); // the next sum would leave the exact range
      total = duration;
    } else {
      total += duration;
    }
  }
  return big + BigInt(total);
}

/** Length of the union of the children's intervals (overlaps counted once), exact. */
function unionLengthOf(table: SpanTable, children: Int32Array, from: number, to: number): bigint {
  if (!table.hasBigValues) {
    const covered = childRowsUnionLength(table, children, from, to, (row) => table.durationNumber(row));
    if (covered !== Number.POSITIVE_INFINITY) return BigInt(covered);
  }
  return unionLengthBig(table, children, from, to);
}

/** The exact bigint path, for spans with values past 2^53 (rare); ends saturate at 2^64 − 1. */
function unionLengthBig(table: SpanTable, children: Int32Array, from: number, to: number): bigint {
  const intervals: [bigint, bigint][] = [];
  for (let index = from; index < to; index++) {
    const row = children[index] as number;
    intervals.push([BigInt(table.startU64(row)), end(table, row)]);
  }
  return intervalsUnionLength(intervals);
}
