import type { SpanCost } from "@cg/parser";
import { U64_MAX, u64ToBigInt } from "@cg/schema";
import { toExact } from "./exact-number.js";
import type { ReportLimits } from "./report-limits.js";
import type { SpanCostTable } from "./report-payload.js";

function saturated(value: bigint): bigint {
  return value > U64_MAX ? U64_MAX : value;
}

/** The parser's per-span costs added up per path (and kind and step), most expensive first. */
export function buildSpanCostTable(costs: readonly SpanCost[], limits: ReportLimits): SpanCostTable {
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
  for (const cost of costs) {
    const key = `${cost.path}\u0000${cost.kind}\u0000${cost.step ?? ""}`;
    let group = groups.get(key);
    if (group === undefined) {
      group = { path: cost.path, kind: cost.kind, spans: 0, total: 0n, self: 0n, ops: 0n, bytes: 0n };
      if (cost.step !== undefined) group.step = cost.step;
      groups.set(key, group);
    }
    group.spans++;
    group.total = saturated(group.total + u64ToBigInt(cost.total_ns));
    group.self = saturated(group.self + u64ToBigInt(cost.self_ns));
    group.ops += BigInt(cost.op_count);
    group.bytes = saturated(group.bytes + u64ToBigInt(cost.op_bytes));
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
