// Runs in the report page (inlined through its source text): gradient facts, problems first.
import type { GradientRow, ReportPayload } from "../report-payload.js";
import type { PageHelpers } from "./page-helpers.js";

export function renderGradients(container: HTMLElement, payload: ReportPayload, helpers: PageHelpers): void {
  const gradients = payload.candidate.gradients;
  const children: Array<Node | string> = [];
  if (gradients.rows_total === 0) {
    children.push(helpers.note("No gradient facts were captured."));
    container.append(helpers.section("Gradients", children));
    return;
  }
  children.push(
    helpers.element("p", { "data-testid": "gradient-verdict" }, [
      helpers.groupDigits(gradients.rows_total) +
        " gradient facts captured; " +
        helpers.groupDigits(gradients.problems) +
        " require attention.",
    ]),
  );
  helpers.partNote(
    children,
    gradients.rows.length,
    gradients.rows_total,
    "Listing {shown} of {total} gradients: every problem first, then present ones by norm.",
  );
  const severity: Record<string, number> = { non_finite: 0, missing: 1, zero: 2, present: 3 };
  const table = helpers.table<GradientRow>(
    [
      helpers.textColumn("Parameter", (row) => row.root + "/" + row.key),
      {
        label: "State",
        text: (row) => row.state,
        sortKey: (row) => severity[row.state] ?? 4,
        className: (row) => (row.problem ? "state-bad" : "state-ok"),
      },
      {
        label: "Norm",
        text: (row) => (row.norm === null ? "—" : String(row.norm)),
        sortKey: (row) => (typeof row.norm === "number" ? row.norm : -1),
        numeric: true,
      },
    ],
    gradients.rows,
    {
      caption: "Gradient state and norm per parameter",
      filterLabel: "Filter parameters",
      filterText: (row) => row.root + "/" + row.key + " " + row.state,
    },
  );
  table.setAttribute("data-testid", "gradients");
  children.push(table);
  container.append(helpers.section("Gradients", children));
}
