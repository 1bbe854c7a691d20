import type { TraceDocument } from "@cg/parser";
import type { ReportLimits } from "./report-limits.js";
import type { GradientRow, GradientTable } from "./report-payload.js";

const problemOrder: Record<string, number> = { non_finite: 0, missing: 1, zero: 2 };

/** Gradient facts with every problem (non-finite, missing, zero) before the present ones. */
export function buildGradientTable(document: TraceDocument, limits: ReportLimits): GradientTable {
  const rows: GradientRow[] = document.gradients.map((gradient) => ({
    root: gradient.root,
    key: gradient.key,
    state: gradient.state,
    norm: gradient.norm ?? null,
    problem: gradient.state !== "present",
  }));
  const ranked = rows
    .map((row, index) => ({ row, index }))
    .sort((left, right) => {
      const rank = (problemOrder[left.row.state] ?? 3) - (problemOrder[right.row.state] ?? 3);
      return rank !== 0 ? rank : left.index - right.index;
    })
    .map(({ row }) => row);
  return {
    rows: ranked.slice(0, limits.gradientRows),
    rows_total: rows.length,
    problems: rows.filter((row) => row.problem).length,
  };
}
