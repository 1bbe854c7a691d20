import type { SpanCost, TraceDocument } from "@cg/parser";
import { U64_MAX, u64ToBigInt } from "@cg/schema";
import { approximate, toExact } from "./exact-number.js";
import type { ReportLimits } from "./report-limits.js";
import type { TimelineOp, TimelineReport, TimelineSpan } from "./report-payload.js";

/** Sums saturate at 2^64 − 1 like every u64 figure of the reference. */
function saturated(value: bigint): bigint {
  return value > U64_MAX ? U64_MAX : value;
}

/**
 * Spans to draw: all of them, or level by level from the root (longest first within a level), so
 * the upper tree is complete; ancestors are always added so the tree stays connected.
 */
function chooseSpans(costs: readonly SpanCost[], document: TraceDocument, limit: number): SpanCost[] {
  if (costs.length <= limit) return costs.slice();
  const byId = new Map(costs.map((cost) => [cost.id, cost]));
  const parentOf = new Map(document.spans.map((span) => [span.id, span.parent_id]));
  const chosen = new Set<string>();
  const longest = costs
    .slice()
    .sort(
      (left, right) => left.depth - right.depth || approximate(right.total_ns) - approximate(left.total_ns),
    );
  for (const cost of longest) {
    if (chosen.size >= limit) break;
    let id: string | undefined = cost.id;
    while (id !== undefined && byId.has(id) && !chosen.has(id)) {
      chosen.add(id);
      id = parentOf.get(id);
    }
  }
  return costs.filter((cost) => chosen.has(cost.id));
}

export function buildTimeline(
  document: TraceDocument,
  costs: readonly SpanCost[],
  limits: ReportLimits,
): TimelineReport {
  const chosen = chooseSpans(costs, document, limits.timelineSpans);
  const records = new Map(document.spans.map((span) => [span.id, span]));
  const indexById = new Map(chosen.map((cost, index) => [cost.id, index]));
  const spans: TimelineSpan[] = chosen.map((cost) => {
    const record = records.get(cost.id);
    const parentId = record?.parent_id;
    const span: TimelineSpan = {
      id: cost.id,
      parent: parentId === undefined ? -1 : (indexById.get(parentId) ?? -1),
      name: cost.name,
      kind: cost.kind,
      measured: cost.measured,
      closed: record?.closed ?? false,
      depth: cost.depth,
      start_ns: toExact(record?.start_ns ?? 0),
      duration_ns: toExact(cost.total_ns),
      self_ns: toExact(cost.self_ns),
      op_count: cost.op_count,
    };
    if (cost.step !== undefined) span.step = cost.step;
    return span;
  });

  const drawnOps = document.ops.filter((op) => indexById.has(op.span_id));
  let ops: TimelineOp[];
  const aggregated = drawnOps.length > limits.timelineOps;
  if (!aggregated) {
    ops = drawnOps.map((op) => ({
      span: indexById.get(op.span_id) ?? 0,
      name: op.op_name,
      timestamp_ns: toExact(op.timestamp_ns),
      duration_ns: toExact(op.duration_ns),
      storage_bytes: toExact(op.storage_bytes),
      count: 1,
    }));
  } else {
    const groups = new Map<
      string,
      { span: number; name: string; first: bigint; ns: bigint; bytes: bigint; count: number }
    >();
    for (const op of drawnOps) {
      const key = `${op.span_id}\u0000${op.op_name}`;
      const timestamp = u64ToBigInt(op.timestamp_ns);
      const group = groups.get(key);
      if (group === undefined) {
        groups.set(key, {
          span: indexById.get(op.span_id) ?? 0,
          name: op.op_name,
          first: timestamp,
          ns: u64ToBigInt(op.duration_ns),
          bytes: u64ToBigInt(op.storage_bytes),
          count: 1,
        });
      } else {
        group.count++;
        group.ns += u64ToBigInt(op.duration_ns);
        group.bytes += u64ToBigInt(op.storage_bytes);
        if (timestamp < group.first) group.first = timestamp;
      }
    }
    ops = [...groups.values()]
      .sort((left, right) => (right.ns > left.ns ? 1 : right.ns < left.ns ? -1 : 0))
      .slice(0, limits.timelineOps)
      .map((group) => ({
        span: group.span,
        name: group.name,
        timestamp_ns: toExact(group.first),
        duration_ns: toExact(saturated(group.ns)),
        storage_bytes: toExact(saturated(group.bytes)),
        count: group.count,
      }));
  }
  return {
    spans,
    ops,
    spans_total: costs.length,
    ops_total: document.ops.length,
    ops_aggregated: aggregated,
  };
}
