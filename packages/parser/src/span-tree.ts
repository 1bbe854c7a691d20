// Parent/child index over a document's spans with cycle-safe depth. Every walk is iterative with
// memoisation, so 100,000-deep chains and parent cycles cost linear time and no stack.
import { type U64, U64_MAX, u64ToBigInt } from "@cg/schema";
import { intervalsUnionLength } from "./interval-union.js";
import type { SpanRecord } from "./trace-document.js";

export interface SpanTree {
  byId: Map<string, SpanRecord>;
  /** Direct children per parent id, in the spans' (id) order. */
  children: Map<string, SpanRecord[]>;
  /** Summary depth of spec §10 per span id. */
  depth: Map<string, number>;
  /** Ids whose parent chain revisits an id (spec §12.1 step 4d, reference semantics). */
  inCycle: Set<string>;
}

const UNKNOWN = 0;
const VISITING = 1;
const DONE = 2;

export function buildSpanTree(spans: readonly SpanRecord[]): SpanTree {
  const byId = new Map<string, SpanRecord>();
  for (const span of spans) if (!byId.has(span.id)) byId.set(span.id, span);
  const children = new Map<string, SpanRecord[]>();
  for (const span of spans) {
    if (span.parent_id === undefined) continue;
    const list = children.get(span.parent_id);
    if (list === undefined) children.set(span.parent_id, [span]);
    else list.push(span);
  }

  // Depth and cycle membership in one memoised pass over parent chains.
  const depth = new Map<string, number>();
  const inCycle = new Set<string>();
  const state = new Map<string, number>();
  for (const start of byId.keys()) {
    if (state.get(start) === DONE) continue;
    const path: string[] = [];
    let current: string | undefined = start;
    let tailDepth = 0;
    let tailCycle = false;
    while (true) {
      if (current === undefined) break;
      const seen = state.get(current) ?? UNKNOWN;
      if (seen === DONE) {
        tailDepth = (depth.get(current) ?? 0) + 1;
        tailCycle = inCycle.has(current);
        break;
      }
      if (seen === VISITING) {
        tailCycle = true;
        break;
      }
      const span = byId.get(current);
      if (span === undefined) {
        // A link to a missing span counts as one level (spec §10).
        tailDepth = 1;
        break;
      }
      state.set(current, VISITING);
      path.push(current);
      current = span.parent_id;
    }
    if (tailCycle) {
      for (const id of path) {
        state.set(id, DONE);
        inCycle.add(id);
        depth.set(id, cycleDepth(id, byId));
      }
      continue;
    }
    // `tailDepth` is the depth of the last path element's parent link target, plus one.
    let next = path.length === 0 ? 0 : tailDepth;
    for (let index = path.length - 1; index >= 0; index--) {
      const id = path[index] as string;
      const span = byId.get(id) as SpanRecord;
      const value = span.parent_id === undefined ? 0 : next;
      depth.set(id, value);
      state.set(id, DONE);
      next = value + 1;
    }
  }
  return { byId, children, depth, inCycle };
}

/** The reference walk for spans whose chain reaches a cycle: count links until an id repeats. */
function cycleDepth(id: string, byId: Map<string, SpanRecord>): number {
  const seen = new Set<string>();
  let count = 0;
  let current = byId.get(id)?.parent_id;
  while (current !== undefined && !seen.has(current)) {
    seen.add(current);
    count++;
    current = byId.get(current)?.parent_id;
  }
  return count;
}

/** `start_ns + duration_ns`, saturating at 2^64 − 1. */
export function spanEnd(span: SpanRecord): bigint {
  const end = u64ToBigInt(span.start_ns) + u64ToBigInt(span.duration_ns);
  // biome-ignore lint/complexity/useMathMinMax: bigints; Math.min does not take them
  return end > U64_MAX ? U64_MAX : end;
}

/** Total length covered by the union of the spans' intervals (overlaps counted once). */
export function unionLength(spans: readonly SpanRecord[]): bigint {
  return intervalsUnionLength(spans.map((span) => [u64ToBigInt(span.start_ns), spanEnd(span)]));
}

/** Exact sum of durations (no overflow; spec §17 Q8). */
export function durationSum(spans: readonly SpanRecord[]): bigint {
  let total = 0n;
  for (const span of spans) total += u64ToBigInt(span.duration_ns);
  return total;
}

export function toU64(value: bigint): U64 {
  return value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
}
