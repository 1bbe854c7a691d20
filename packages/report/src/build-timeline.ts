import { resolveStorageBytes } from "@cg/memory";
import type { OpEvent } from "@cg/schema/core";
import { saturateU64, u64ToBigInt } from "@cg/schema/core";
import { approximate, toExact } from "./exact-number.js";
import type { ReportLimits } from "./report-limits.js";
import type { TimelineOp, TimelineReport, TimelineSpan } from "./report-payload.js";
import type { ReportSpans } from "./report-spans.js";

/** The spans the flame chart draws, chosen before any op is looked at. */
export interface TimelinePlan {
  /** Rows drawn, in the document's span order. */
  rows: number[];
  /** Index in `rows` of each drawn span, by id. */
  indexById: Map<string, number>;
}

/**
 * Spans to draw: all of them, or level by level from the root (longest first within a level), so
 * the upper tree is complete; ancestors are always added so the tree stays connected.
 */
export function planTimeline(spans: ReportSpans, limits: ReportLimits): TimelinePlan {
  const order = spans.rowsInIdOrder();
  let rows: number[];
  if (spans.size <= limits.timelineSpans) {
    rows = Array.from(order);
  } else {
    // Depth, then longest first; ties keep the document order (the sort is stable).
    const ranked = Array.from(order).sort(
      (left, right) =>
        spans.depth(left) - spans.depth(right) ||
        approximate(spans.totalNs(right)) - approximate(spans.totalNs(left)),
    );
    const chosen = new Set<number>();
    for (const start of ranked) {
      if (chosen.size >= limits.timelineSpans) break;
      for (let row = start; row >= 0 && !chosen.has(row); row = spans.parent(row)) chosen.add(row);
    }
    rows = [];
    for (let index = 0; index < order.length; index++) {
      const row = order[index] as number;
      if (chosen.has(row)) rows.push(row);
    }
  }
  return { rows, indexById: new Map(rows.map((row, index) => [spans.id(row), index])) };
}

type TimelineOpEvent = Pick<
  OpEvent,
  "span_id" | "op_name" | "timestamp_ns" | "duration_ns" | "storage_bytes" | "shape" | "dtype"
>;

interface OpGroup {
  span: number;
  name: string;
  first: bigint;
  ns: bigint;
  bytes: bigint;
  count: number;
}

/**
 * The op marks of the drawn spans, fed every op of the trace in file order: one mark per op while
 * they fit in `timelineOps`, else one per (span, op name), the costliest kept. Holds at most
 * `timelineOps` ops plus one group per drawn span and op name.
 */
export class TimelineOpCollector {
  readonly #plan: TimelinePlan;
  readonly #limit: number;
  #ops: TimelineOp[] | undefined = [];
  readonly #groups = new Map<string, OpGroup>();
  #total = 0;

  constructor(plan: TimelinePlan, limits: ReportLimits) {
    this.#plan = plan;
    this.#limit = limits.timelineOps;
  }

  /** True when ops of span `spanId` are drawn (`push` keeps them); the others need only `skip`. */
  draws(spanId: string): boolean {
    return this.#plan.indexById.has(spanId);
  }

  /** Counts an op of a span that is not drawn, as `push` would, without its fields. */
  skip(): void {
    this.#total++;
  }

  push(op: TimelineOpEvent): void {
    this.#total++;
    const span = this.#plan.indexById.get(op.span_id);
    if (span === undefined) return;
    const storage = resolveStorageBytes(op.storage_bytes, op.shape, op.dtype);
    if (this.#ops !== undefined) {
      if (this.#ops.length < this.#limit) {
        this.#ops.push({
          span,
          name: op.op_name,
          timestamp_ns: toExact(op.timestamp_ns),
          duration_ns: toExact(op.duration_ns),
          storage_bytes: toExact(storage),
          count: 1,
        });
      } else {
        this.#ops = undefined; // more than fit: marks are folded from here on
      }
    }
    const key = `${op.span_id}\u0000${op.op_name}`;
    const timestamp = u64ToBigInt(op.timestamp_ns);
    const group = this.#groups.get(key);
    if (group === undefined) {
      this.#groups.set(key, {
        span,
        name: op.op_name,
        first: timestamp,
        ns: u64ToBigInt(op.duration_ns),
        bytes: u64ToBigInt(storage),
        count: 1,
      });
    } else {
      group.count++;
      group.ns += u64ToBigInt(op.duration_ns);
      group.bytes += u64ToBigInt(storage);
      if (timestamp < group.first) group.first = timestamp;
    }
  }

  /** Ops pushed, drawn or not. */
  get total(): number {
    return this.#total;
  }

  /** The marks, and whether they were folded per (span, op name). */
  marks(): { ops: TimelineOp[]; aggregated: boolean } {
    if (this.#ops !== undefined) return { ops: this.#ops, aggregated: false };
    const ops = [...this.#groups.values()]
      .sort((left, right) => (right.ns > left.ns ? 1 : right.ns < left.ns ? -1 : 0))
      .slice(0, this.#limit)
      .map((group) => ({
        span: group.span,
        name: group.name,
        timestamp_ns: toExact(group.first),
        duration_ns: toExact(saturateU64(group.ns)),
        storage_bytes: toExact(saturateU64(group.bytes)),
        count: group.count,
      }));
    return { ops, aggregated: true };
  }
}

/** The flame chart: the planned spans and the collected op marks. */
export function buildTimeline(
  spans: ReportSpans,
  plan: TimelinePlan,
  ops: TimelineOpCollector,
): TimelineReport {
  const drawn: TimelineSpan[] = plan.rows.map((row) => {
    const parent = spans.parent(row);
    const span: TimelineSpan = {
      id: spans.id(row),
      parent: parent < 0 ? -1 : (plan.indexById.get(spans.id(parent)) ?? -1),
      name: spans.name(row),
      kind: spans.kind(row),
      measured: spans.measured(row),
      closed: spans.closed(row),
      depth: spans.depth(row),
      start_ns: toExact(spans.startNs(row)),
      duration_ns: toExact(spans.totalNs(row)),
      self_ns: toExact(spans.selfNs(row)),
      op_count: spans.opCount(row),
    };
    const step = spans.step(row);
    if (step !== undefined) span.step = step;
    return span;
  });
  const { ops: marks, aggregated } = ops.marks();
  return {
    spans: drawn,
    ops: marks,
    spans_total: spans.size,
    ops_total: ops.total,
    ops_aggregated: aggregated,
  };
}
