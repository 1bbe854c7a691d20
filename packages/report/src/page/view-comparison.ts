// Runs in the report page (inlined through its source text): baseline versus candidate.
import type { GradientChangeRow, PathDeltaRow, ReportPayload } from "../report-payload.js";
import type { PageHelpers } from "./page-helpers.js";

export function renderComparison(container: HTMLElement, payload: ReportPayload, helpers: PageHelpers): void {
  const { element, tile } = helpers;
  const comparison = payload.comparison;
  if (!comparison) return;
  const baselineLabel = payload.baseline?.label ?? "baseline";

  function percent(value: number | undefined): string {
    return value === undefined ? "" : " (" + (value > 0 ? "+" : "") + value.toFixed(1) + "%)";
  }

  const verdict = comparison.comparable
    ? "Comparable: both traces are trusted and describe the same workload."
    : "Not comparable: " + comparison.reasons.join("; ");
  const header: Array<Node | string> = [
    element(
      "p",
      { class: comparison.comparable ? "verdict ok" : "verdict bad", "data-testid": "comparable" },
      [verdict],
    ),
    element("p", {}, ["Baseline: " + baselineLabel + " · candidate: " + payload.candidate.label]),
  ];
  for (const warning of comparison.warnings) header.push(helpers.note(warning));
  header.push(
    element("div", { class: "tiles" }, [
      tile(
        "Measured total",
        helpers.formatSignedDuration(comparison.total_delta_ns) + percent(comparison.total_delta_percent),
        helpers.formatDuration(comparison.baseline_total_ns) +
          " → " +
          helpers.formatDuration(comparison.candidate_total_ns),
        "total-delta",
      ),
      tile(
        "Peak memory",
        helpers.formatSignedBytes(comparison.peak_delta_bytes),
        helpers.groupDigits(comparison.baseline_peak_bytes) +
          " → " +
          helpers.groupDigits(comparison.candidate_peak_bytes) +
          " bytes",
        "peak-delta",
      ),
    ]),
  );
  container.append(helpers.section("Comparison", header));

  const paths = helpers.table<PathDeltaRow>(
    [
      helpers.textColumn("Path", (row) => row.path),
      helpers.numberColumn("Baseline", (row) => row.baseline_ns, helpers.formatDuration),
      helpers.numberColumn("Candidate", (row) => row.candidate_ns, helpers.formatDuration),
      {
        label: "Delta",
        text: (row) => helpers.formatSignedDuration(row.delta_ns) + percent(row.delta_percent),
        sortKey: (row) => Math.abs(helpers.toNumber(row.delta_ns)),
        numeric: true,
        className: (row) => (helpers.toNumber(row.delta_ns) > 0 ? "worse" : "better"),
      },
    ],
    comparison.paths,
    { caption: "Per-path deltas of the measured subtree", initialSort: 3, initialDescending: true },
  );
  paths.setAttribute("data-testid", "path-deltas");
  container.append(
    helpers.section("Span paths", [
      comparison.paths.length > 0 ? paths : helpers.note("No measured span paths to compare."),
    ]),
  );

  const changes = helpers.table<GradientChangeRow>(
    [
      helpers.textColumn("Parameter", (row) => row.key),
      { label: "Baseline", text: (row) => row.baseline },
      { label: "Candidate", text: (row) => row.candidate },
    ],
    comparison.gradient_changes,
    { caption: "Gradients whose state or norm changed" },
  );
  container.append(
    helpers.section("Gradient changes", [
      comparison.gradient_changes.length > 0 ? changes : helpers.note("No gradient changed."),
    ]),
  );
}
