// Runs in the report page (inlined through its source text): the operator table, like PyTorch's
// key_averages, sortable by any column and filterable by op name; each name's tooltip lists the
// shapes, dtypes and devices of its calls.
import type { OperatorRow, ReportPayload } from "../report-payload.js";
import type { PageHelpers } from "./page-helpers.js";

export function renderOperators(container: HTMLElement, payload: ReportPayload, helpers: PageHelpers): void {
  const operators = payload.candidate.operators;
  const children: Array<Node | string> = [];
  children.push(
    helpers.note(
      helpers.groupDigits(operators.op_count) +
        " ops in " +
        helpers.groupDigits(operators.rows_total) +
        " operators, " +
        helpers.formatDuration(operators.op_total_ns) +
        " in total. Percentiles are exact (nearest rank over every call). Hover a name for its shapes and dtypes.",
    ),
  );
  const cut = helpers.partNote(
    operators.rows.length,
    operators.rows_total,
    "Showing the {shown} costliest operators of {total}.",
  );
  if (cut !== undefined) children.push(cut);
  const duration = (pick: (row: OperatorRow) => OperatorRow["total_ns"], label: string) => ({
    label,
    text: (row: OperatorRow) => helpers.formatDuration(pick(row)),
    sortKey: (row: OperatorRow) => helpers.toNumber(pick(row)),
    numeric: true,
  });
  const table = helpers.table<OperatorRow>(
    [
      {
        label: "Operator",
        text: (row) => row.op_name,
        sortKey: (row) => row.op_name,
        title: (row) =>
          "shapes: " +
          row.shapes.join(", ") +
          (row.shapes_more > 0 ? " (+" + row.shapes_more + " more)" : "") +
          "\ndtypes: " +
          row.dtypes.join(", ") +
          "\ndevices: " +
          row.devices.join(", "),
      },
      {
        label: "Calls",
        text: (row) => helpers.groupDigits(row.calls),
        sortKey: (row) => row.calls,
        numeric: true,
      },
      duration((row) => row.total_ns, "Total"),
      duration((row) => row.mean_ns, "Mean"),
      duration((row) => row.min_ns, "Min"),
      duration((row) => row.p50_ns, "p50"),
      duration((row) => row.p95_ns, "p95"),
      duration((row) => row.max_ns, "Max"),
      {
        label: "% of measured",
        text: (row) => (row.share === null ? "–" : (row.share * 100).toFixed(1) + "%"),
        sortKey: (row) => row.share ?? -1,
        numeric: true,
      },
      {
        label: "Output",
        text: (row) => helpers.formatBytes(row.output_bytes),
        sortKey: (row) => helpers.toNumber(row.output_bytes),
        numeric: true,
      },
      {
        label: "Inputs",
        text: (row) => helpers.formatBytes(row.input_bytes),
        sortKey: (row) => helpers.toNumber(row.input_bytes),
        numeric: true,
      },
    ],
    operators.rows,
    {
      caption: "Operators by total time",
      initialSort: 2,
      initialDescending: true,
      filterLabel: "Filter operators",
      filterText: ((row: OperatorRow) => row.op_name) as (row: never) => string,
    },
  );
  table.setAttribute("data-testid", "operators");
  children.push(table);
  container.append(helpers.section("Operators", children));
}
