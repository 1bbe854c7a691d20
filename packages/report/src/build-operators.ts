import type { OperatorTable } from "@cg/parser";
import { toExact } from "./exact-number.js";
import type { OperatorReport } from "./report-payload.js";

/** The operator table of @cg/parser (per op name), already cut to the costliest `operatorRows`. */
export function buildOperatorReport(table: OperatorTable): OperatorReport {
  return {
    rows: table.operators.map((row) => ({
      op_name: row.op_name,
      calls: row.calls,
      total_ns: toExact(row.total_ns),
      mean_ns: toExact(row.mean_ns),
      min_ns: toExact(row.min_ns),
      p50_ns: toExact(row.p50_ns),
      p95_ns: toExact(row.p95_ns),
      max_ns: toExact(row.max_ns),
      share: row.share_of_measured,
      output_bytes: toExact(row.output_bytes),
      input_bytes: toExact(row.input_bytes),
      shapes: row.shapes,
      shapes_more: row.shapes_more,
      dtypes: row.dtypes,
      devices: row.devices,
    })),
    rows_total: table.operator_count,
    op_count: table.op_count,
    op_total_ns: toExact(table.op_total_ns),
  };
}
