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
  helpers.partNote(
    children,
    operators.rows.length,
    operators.rows_total,
    "Showing the {shown} costliest operators of {total}.",
  );
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
      helpers.numberColumn("Calls", (row) => row.calls, helpers.groupDigits),
      helpers.numberColumn("Total", (row) => row.total_ns, helpers.formatDuration),
      helpers.numberColumn("Mean", (row) => row.mean_ns, helpers.formatDuration),
      helpers.numberColumn("Min", (row) => row.min_ns, helpers.formatDuration),
      helpers.numberColumn("p50", (row) => row.p50_ns, helpers.formatDuration),
      helpers.numberColumn("p95", (row) => row.p95_ns, helpers.formatDuration),
      helpers.numberColumn("Max", (row) => row.max_ns, helpers.formatDuration),
      {
        label: "% of measured",
        text: (row) => (row.share === null ? "–" : (row.share * 100).toFixed(1) + "%"),
        sortKey: (row) => row.share ?? -1,
        numeric: true,
      },
      helpers.numberColumn("Output", (row) => row.output_bytes, helpers.formatBytes),
      helpers.numberColumn("Inputs", (row) => row.input_bytes, helpers.formatBytes),
    ],
    operators.rows,
    {
      caption: "Operators by total time",
      initialSort: 2,
      initialDescending: true,
      filterLabel: "Filter operators",
      filterText: (row) => row.op_name,
    },
  );
  table.setAttribute("data-testid", "operators");
  children.push(table);
  container.append(helpers.section("Operators", children));
}
