import { saturateU64, u64ToBigInt } from "@cg/schema/core";
import { toExact } from "./exact-number.js";
import type { ReportLimits } from "./report-limits.js";
import type { SpanCostTable } from "./report-payload.js";
import type { ReportSpans } from "./report-spans.js";

/**
 * The parser's per-span costs added up per path (and kind and step), most expensive first. Holds
 * one group per distinct path, not per span.
 */
export function buildSpanCostTable(spans: ReportSpans, limits: ReportLimits): SpanCostTable {
  const groups = new Map<
    string,
    {
      path: string;
      kind: string;
      step?: string;
      spans: number;
      total: bigint;
      self: bigint;
      ops: bigint;
      bytes: bigint;
    }
  >();
  const order = spans.rowsInIdOrder();
  for (let index = 0; index < order.length; index++) {
    const row = order[index] as number;
    const path = spans.path(row);
    const kind = spans.kind(row);
    const step = spans.step(row);
    const key = `${path}\u0000${kind}\u0000${step ?? ""}`;
    let group = groups.get(key);
    if (group === undefined) {
      group = { path, kind, spans: 0, total: 0n, self: 0n, ops: 0n, bytes: 0n };
      if (step !== undefined) group.step = step;
      groups.set(key, group);
    }
    group.spans++;
    group.total = saturateU64(group.total + u64ToBigInt(spans.totalNs(row)));
    group.self = saturateU64(group.self + u64ToBigInt(spans.selfNs(row)));
    group.ops += BigInt(spans.opCount(row));
    group.bytes = saturateU64(group.bytes + u64ToBigInt(spans.opBytes(row)));
  }
  const rows = [...groups.values()]
    .sort((left, right) => (right.total > left.total ? 1 : right.total < left.total ? -1 : 0))
    .slice(0, limits.spanCostRows)
    .map((group) => {
      const row: SpanCostTable["rows"][number] = {
        path: group.path,
        kind: group.kind,
        spans: group.spans,
        total_ns: toExact(group.total),
        self_ns: toExact(group.self),
        op_count: toExact(group.ops),
        op_bytes: toExact(group.bytes),
      };
      if (group.step !== undefined) row.step = group.step;
      return row;
    });
  return { rows, rows_total: groups.size };
}
