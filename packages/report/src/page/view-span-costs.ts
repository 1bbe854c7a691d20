// Runs in the report page (inlined through its source text): sortable per-path cost table.
import type { ReportPayload, SpanCostRow } from "../report-payload.js";
import type { PageHelpers } from "./page-helpers.js";

export function renderSpanCosts(container: HTMLElement, payload: ReportPayload, helpers: PageHelpers): void {
  const costs = payload.candidate.spanCosts;
  const children: Array<Node | string> = [];
  helpers.partNote(
    children,
    costs.rows.length,
    costs.rows_total,
    "Showing the {shown} most expensive paths of {total}.",
  );
  children.push(
    helpers.note("Spans that share a path are added together; self time is total minus direct children."),
  );
  const table = helpers.table<SpanCostRow>(
    [
      helpers.textColumn("Path", (row) => row.path),
      {
        label: "Kind",
        text: (row) => row.kind + (row.step ? " · " + row.step : ""),
        sortKey: (row) => row.kind,
      },
      helpers.numberColumn("Spans", (row) => row.spans, helpers.groupDigits),
      helpers.numberColumn("Total", (row) => row.total_ns, helpers.formatDuration),
      helpers.numberColumn("Self", (row) => row.self_ns, helpers.formatDuration),
      helpers.numberColumn("Ops", (row) => row.op_count, helpers.groupDigits),
      helpers.numberColumn("Op bytes", (row) => row.op_bytes, helpers.formatBytes),
    ],
    costs.rows,
    {
      caption: "Cost per span path",
      initialSort: 3,
      initialDescending: true,
      filterLabel: "Filter paths",
      filterText: (row) => row.path,
    },
  );
  table.setAttribute("data-testid", "span-costs");
  children.push(table);
  container.append(helpers.section("Span costs", children));
}
