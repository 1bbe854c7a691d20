// Runs in the report page (inlined through its source text): baseline versus candidate.
import type {
  AttributionHalfReport,
  AttributionPartRow,
  GradientChangeRow,
  PathDeltaRow,
  ReportPayload,
} from "../report-payload.js";
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

  // What explains each delta: ranked parts with a bar for their size, then the unmatched and other
  // rows; the rows add up to the delta exactly.
  function attributionTable(
    half: AttributionHalfReport,
    format: (value: number | string) => string,
    testId: string,
    caption: string,
  ): HTMLElement {
    let largest = 0;
    for (const part of half.parts) largest = Math.max(largest, Math.abs(helpers.toNumber(part.delta)));
    largest = Math.max(
      largest,
      Math.abs(helpers.toNumber(half.unmatched.delta)),
      Math.abs(helpers.toNumber(half.other.delta)),
    );
    function row(
      rank: string,
      label: string,
      delta: number | string,
      share: string,
      sides: string,
      detail: string,
      kind: string,
    ) {
      const value = helpers.toNumber(delta);
      const width =
        largest === 0 ? 0 : Math.max(value === 0 ? 0 : 1, Math.round((Math.abs(value) / largest) * 100));
      const bar = element("div", { class: "attr-track" }, [
        element("div", {
          class: "attr-bar " + (value > 0 ? "worse" : "better"),
          style: "width: " + width + "%",
        }),
      ]);
      return element("tr", { class: kind }, [
        element("td", { class: "num" }, [rank]),
        element("td", { class: "attr-label" }, [label]),
        element("td", { class: "num " + (value > 0 ? "worse" : value < 0 ? "better" : "") }, [format(delta)]),
        element("td", {}, [bar]),
        element("td", { class: "num" }, [share]),
        element("td", { class: "num" }, [sides]),
        element("td", {}, [detail]),
      ]);
    }
    const total = helpers.toNumber(half.delta);
    const shareOf = (value: number | string) =>
      total === 0 ? "" : ((helpers.toNumber(value) / total) * 100).toFixed(1) + "%";
    const body = element("tbody");
    for (const part of half.parts as AttributionPartRow[]) {
      body.append(
        row(
          String(part.rank),
          part.label,
          part.delta,
          shareOf(part.delta),
          format(part.baseline).replace(/^\+/, "") + " → " + format(part.candidate).replace(/^\+/, ""),
          part.detail,
          "attr-part",
        ),
      );
    }
    body.append(
      row(
        "",
        "unmatched: " + half.unmatched.parts + " parts on one side only",
        half.unmatched.delta,
        shareOf(half.unmatched.delta),
        "",
        half.unmatched.largest.join("; "),
        "attr-rest",
      ),
    );
    body.append(
      row(
        "",
        "other: " + half.other.parts + " smaller parts",
        half.other.delta,
        shareOf(half.other.delta),
        "",
        "smaller parts " +
          format(half.other.parts_delta) +
          ", outside the parts " +
          format(half.other.structure_delta),
        "attr-rest",
      ),
    );
    const head = element("thead", {}, [
      element(
        "tr",
        {},
        ["#", "Part", "Delta", "", "Share", "Baseline → candidate", "Detail"].map((title) =>
          element("th", {}, [title]),
        ),
      ),
    ]);
    return element("table", { class: "attribution", "data-testid": testId }, [
      element("caption", {}, [caption]),
      head,
      body,
    ]);
  }

  const attribution = comparison.attribution;
  if (attribution) {
    const peak = attribution.peak;
    const children: Array<Node | string> = [
      element("p", { "data-testid": "attribution-time" }, [
        "Step time " +
          helpers.formatSignedDuration(attribution.time.delta) +
          percent(attribution.time.delta_percent) +
          ": the named parts hold " +
          Math.round(attribution.time.named_share * 100) +
          "% of it.",
      ]),
      attributionTable(
        attribution.time,
        helpers.formatSignedDuration,
        "attribution-time-parts",
        "Each op signature's time in a span, and each span's own time outside its ops",
      ),
      element("p", { "data-testid": "attribution-peak" }, [
        "Peak memory " +
          helpers.formatSignedBytes(peak.delta) +
          percent(peak.delta_percent) +
          ": the named parts hold " +
          Math.round(peak.named_share * 100) +
          "% of it." +
          (peak.moved && peak.baseline_span !== undefined && peak.candidate_span !== undefined
            ? " The peak moved from " + peak.baseline_span + " to " + peak.candidate_span + "."
            : peak.candidate_span !== undefined
              ? " Both peaks are reached in " + peak.candidate_span + "."
              : ""),
      ]),
      attributionTable(
        peak,
        helpers.formatSignedBytes,
        "attribution-peak-parts",
        "What each span, category and op held at each peak",
      ),
    ];
    if (peak.by_category.length > 0) {
      children.push(
        element("p", { class: "attr-categories" }, [
          "By category at the peaks: " +
            peak.by_category
              .map((row) => row.category + " " + helpers.formatSignedBytes(row.delta))
              .join(", "),
        ]),
      );
    }
    container.append(helpers.section("What explains the change", children));
  }

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
