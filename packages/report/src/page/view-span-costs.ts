// Runs in the report page (inlined through its source text): sortable per-path cost table.
import type { ReportPayload, SpanCostRow } from "../report-payload.js";
import type { PageHelpers } from "./page-helpers.js";

export function renderSpanCosts(container: HTMLElement, payload: ReportPayload, helpers: PageHelpers): void {
  const costs = payload.candidate.spanCosts;
  const children: Array<Node | string> = [];
  const cut = helpers.partNote(
    costs.rows.length,
    costs.rows_total,
    "Showing the {shown} most expensive paths of {total}.",
  );
  if (cut !== undefined) children.push(cut);
  children.push(
    helpers.note("Spans that share a path are added together; self time is total minus direct children."),
  );
  const table = helpers.table<SpanCostRow>(
    [
      { label: "Path", text: (row) => row.path, sortKey: (row) => row.path },
      {
        label: "Kind",
        text: (row) => row.kind + (row.step ? " · " + row.step : ""),
        sortKey: (row) => row.kind,
      },
      {
        label: "Spans",
        text: (row) => helpers.groupDigits(row.spans),
        sortKey: (row) => row.spans,
        numeric: true,
      },
      {
        label: "Total",
        text: (row) => helpers.formatDuration(row.total_ns),
        sortKey: (row) => helpers.toNumber(row.total_ns),
        numeric: true,
      },
      {
        label: "Self",
        text: (row) => helpers.formatDuration(row.self_ns),
        sortKey: (row) => helpers.toNumber(row.self_ns),
        numeric: true,
      },
      {
        label: "Ops",
        text: (row) => helpers.groupDigits(row.op_count),
        sortKey: (row) => helpers.toNumber(row.op_count),
        numeric: true,
      },
      {
        label: "Op bytes",
        text: (row) => helpers.formatBytes(row.op_bytes),
        sortKey: (row) => helpers.toNumber(row.op_bytes),
        numeric: true,
      },
    ],
    costs.rows,
    {
      caption: "Cost per span path",
      initialSort: 3,
      initialDescending: true,
      filterLabel: "Filter paths",
      filterText: ((row: SpanCostRow) => row.path) as (row: never) => string,
    },
  );
  table.setAttribute("data-testid", "span-costs");
  children.push(table);
  container.append(helpers.section("Span costs", children));
}
