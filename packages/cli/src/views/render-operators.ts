import type { OperatorTable } from "@cg/parser";
import type { U64 } from "@cg/schema/core";
import type { Style } from "../format/style.js";
import { renderTable } from "../format/table.js";
import { formatBytesShort, formatDuration } from "../format/units.js";

const duration = (nanoseconds: U64): string => formatDuration(nanoseconds);

/** The operator table: one row per operator (and group), costliest first. */
export function renderOperators(table: OperatorTable, style: Style, heading: string): string {
  const shown = table.operators.length;
  const more = table.operator_count > shown ? ` (top ${shown} of ${table.operator_count})` : "";
  const grouped = table.group_by.length > 0 ? `, by op name and ${table.group_by.join(", ")}` : "";
  const out = [
    `${style.bold(heading)}${more}: ${table.op_count} ops, ${duration(table.op_total_ns)} in total${grouped}; percentiles ${table.percentiles}\n`,
  ];
  if (shown === 0) return `${out[0]}  no ops\n`;
  out.push(
    renderTable(
      [
        // On a narrow terminal the spread and byte columns go first, then mean and share.
        { header: "op", priority: 3 },
        ...table.group_by.map((field) => ({ header: field, priority: 3 })),
        { header: "calls", align: "right" as const, priority: 2 },
        { header: "total", align: "right" as const, priority: 2 },
        { header: "mean", align: "right" as const, priority: 1 },
        { header: "min", align: "right" as const },
        { header: "p50", align: "right" as const },
        { header: "p95", align: "right" as const },
        { header: "max", align: "right" as const },
        { header: "% measured", align: "right" as const, priority: 1 },
        { header: "output", align: "right" as const },
        { header: "inputs", align: "right" as const },
      ],
      table.operators.map((row) => [
        row.op_name,
        ...table.group_by.map((field) => row[field] ?? ""),
        String(row.calls),
        duration(row.total_ns),
        duration(row.mean_ns),
        duration(row.min_ns),
        duration(row.p50_ns),
        duration(row.p95_ns),
        duration(row.max_ns),
        row.share_of_measured === null ? "-" : `${(row.share_of_measured * 100).toFixed(1)}%`,
        formatBytesShort(row.output_bytes),
        formatBytesShort(row.input_bytes),
      ]),
    ),
  );
  return out.join("");
}
