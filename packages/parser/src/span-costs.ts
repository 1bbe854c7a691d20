// Per-span cost table, following the reference graph's rules (spec §16 "Graph"): a span's total is
// its duration, or for a zero-duration span its ops' durations plus its children's totals; self
// time is the total minus the time its children cover, saturating at 0.
import { type ExecutionStep, type SpanKind, type U64, U64_MAX, u64ToBigInt } from "@cg/schema";
import { buildSpanTree, type SpanTree, toU64 } from "./span-tree.js";
import type { SpanRecord, TraceDocument } from "./trace-document.js";

export interface SpanCost {
  id: string;
  name: string;
  /** Names from the topmost ancestor down to this span, joined with `/`. */
  path: string;
  kind: SpanKind;
  step?: ExecutionStep;
  depth: number;
  measured: boolean;
  /** True for the measured span and everything below it. */
  in_measured_subtree: boolean;
  total_ns: U64;
  self_ns: U64;
  op_count: number;
  /** Sum of the span's own ops' resolved `storage_bytes` (saturating at 2^64 − 1). */
  op_bytes: U64;
  /** Sum of the span's own ops' `duration_ns`. */
  op_ns: U64;
}

export interface SpanCostOptions {
  /**
   * How children's time is taken off a parent's total: `"union"` (default) subtracts the union of
   * the children's intervals, so overlapping (concurrent) children are not subtracted twice;
   * `"reference"` subtracts the plain sum like candle-graph 0.7.0.
   */
  compat?: "union" | "reference";
}

interface OpTotals {
  count: number;
  ns: bigint;
  bytes: bigint;
}

function collectOps(document: TraceDocument): Map<string, OpTotals> {
  const totals = new Map<string, OpTotals>();
  for (const op of document.ops) {
    let entry = totals.get(op.span_id);
    if (entry === undefined) {
      entry = { count: 0, ns: 0n, bytes: 0n };
      totals.set(op.span_id, entry);
    }
    entry.count++;
    entry.ns += u64ToBigInt(op.duration_ns);
    entry.bytes += u64ToBigInt(op.storage_bytes);
  }
  return totals;
}

function coveredByChildren(
  children: readonly SpanRecord[],
  totals: Map<string, bigint>,
  union: boolean,
): bigint {
  if (!union) {
    let sum = 0n;
    for (const child of children) sum += totals.get(child.id) ?? 0n;
    return sum;
  }
  const intervals = children
    .map((child) => {
      const start = u64ToBigInt(child.start_ns);
      return [start, start + (totals.get(child.id) ?? 0n)] as const;
    })
    .sort((left, right) => (left[0] < right[0] ? -1 : left[0] > right[0] ? 1 : 0));
  let covered = 0n;
  let currentStart = -1n;
  let currentEnd = -1n;
  for (const [start, end] of intervals) {
    if (start > currentEnd) {
      if (currentEnd >= 0n) covered += currentEnd - currentStart;
      currentStart = start;
      currentEnd = end;
    } else if (end > currentEnd) {
      currentEnd = end;
    }
  }
  if (currentEnd >= 0n) covered += currentEnd - currentStart;
  return covered;
}

function spanPath(span: SpanRecord, tree: SpanTree, cache: Map<string, string>): string {
  const chain: SpanRecord[] = [];
  const seen = new Set<string>();
  let current: SpanRecord | undefined = span;
  let prefix = "";
  while (current !== undefined && !seen.has(current.id)) {
    const cached = cache.get(current.id);
    if (cached !== undefined) {
      prefix = cached;
      break;
    }
    seen.add(current.id);
    chain.push(current);
    current = current.parent_id === undefined ? undefined : tree.byId.get(current.parent_id);
  }
  for (let index = chain.length - 1; index >= 0; index--) {
    const link = chain[index] as SpanRecord;
    prefix = prefix === "" ? link.name : `${prefix}/${link.name}`;
    if (!tree.inCycle.has(link.id)) cache.set(link.id, prefix);
  }
  return prefix;
}

function measuredSubtree(spans: readonly SpanRecord[], tree: SpanTree): Set<string> {
  const inside = new Set<string>();
  const stack = spans.filter((span) => span.measured);
  while (stack.length > 0) {
    const span = stack.pop() as SpanRecord;
    if (inside.has(span.id)) continue;
    inside.add(span.id);
    for (const child of tree.children.get(span.id) ?? []) stack.push(child);
  }
  return inside;
}

function saturate(value: bigint): U64 {
  return toU64(value > U64_MAX ? U64_MAX : value);
}

/** Cost of every span, in span (id) order. */
export function spanCosts(document: TraceDocument, options: SpanCostOptions = {}): SpanCost[] {
  const tree = buildSpanTree(document.spans);
  const ops = collectOps(document);
  const union = options.compat !== "reference";

  // Children before parents: deeper spans first (cycle members keep their own duration).
  const byDepth = [...tree.byId.values()].sort(
    (left, right) => (tree.depth.get(right.id) ?? 0) - (tree.depth.get(left.id) ?? 0),
  );
  const totals = new Map<string, bigint>();
  const selfTimes = new Map<string, bigint>();
  for (const span of byDepth) {
    const children = tree.inCycle.has(span.id) ? [] : (tree.children.get(span.id) ?? []);
    let total = u64ToBigInt(span.duration_ns);
    if (total === 0n) {
      total = ops.get(span.id)?.ns ?? 0n;
      for (const child of children) total += totals.get(child.id) ?? 0n;
    }
    totals.set(span.id, total);
    const covered = coveredByChildren(children, totals, union);
    selfTimes.set(span.id, total > covered ? total - covered : 0n);
  }

  const inside = measuredSubtree(document.spans, tree);
  const paths = new Map<string, string>();
  return document.spans.map((span) => {
    const own = ops.get(span.id);
    const cost: SpanCost = {
      id: span.id,
      name: span.name,
      path: spanPath(span, tree, paths),
      kind: span.kind,
      depth: tree.depth.get(span.id) ?? 0,
      measured: span.measured,
      in_measured_subtree: inside.has(span.id),
      total_ns: saturate(totals.get(span.id) ?? u64ToBigInt(span.duration_ns)),
      self_ns: saturate(selfTimes.get(span.id) ?? 0n),
      op_count: own?.count ?? 0,
      op_bytes: saturate(own?.bytes ?? 0n),
      op_ns: saturate(own?.ns ?? 0n),
    };
    if (span.step !== undefined) cost.step = span.step;
    return cost;
  });
}
