// Runs in the report page (inlined through its source text): provenance, health, totals, findings.
import type { ExactNumber } from "../exact-number.js";
import type { ReportPayload } from "../report-payload.js";
import type { PageHelpers } from "./page-helpers.js";

export function renderOverview(container: HTMLElement, payload: ReportPayload, helpers: PageHelpers): void {
  const { element, tile } = helpers;
  const trace = payload.candidate;
  const run = trace.run;

  /** A tile of one quantity: readable in the value, exact (grouped digits and unit) beneath. */
  function exactTile(
    label: string,
    value: ExactNumber,
    format: (value: ExactNumber) => string,
    unit: string,
    testId: string,
  ): HTMLElement {
    return tile(label, format(value), helpers.groupDigits(value) + " " + unit, testId);
  }

  const summary = trace.summary;
  container.append(
    element("div", { class: "tiles" }, [
      exactTile("Measured total", summary.total_ns, helpers.formatDuration, "ns", "measured-total"),
      tile(
        "Spans",
        helpers.groupDigits(summary.span_count),
        helpers.groupDigits(summary.root_span_count) +
          " root, depth " +
          helpers.groupDigits(summary.max_depth),
        "span-count",
      ),
      tile("Ops", helpers.groupDigits(summary.op_count), "timed operations", "op-count"),
      exactTile("Peak memory", summary.peak_bytes, helpers.formatBytes, "bytes", "peak-bytes"),
      tile(
        "Allocations",
        helpers.groupDigits(summary.alloc_count),
        helpers.groupDigits(summary.free_count) + " frees",
        "alloc-count",
      ),
    ]),
  );

  const provenance: Array<[string, string]> = [
    ["Entrypoint", run.entrypoint],
    ["Phase", run.phase],
    ["Capture step", helpers.groupDigits(run.capture_step)],
    ["Warm-up steps", helpers.groupDigits(run.warmup_steps)],
    ["Device", run.device],
    ["Timing mode", run.timing_mode],
    ["Measured region synchronized", run.measured_region_device_synchronized ? "yes" : "no"],
    ["Captured at", run.timestamp],
    ["Run id", run.run_id],
    ["Correlation id", run.correlation_id],
    ["Trace", trace.label],
  ];
  if (run.candle_version !== undefined) provenance.push(["Candle version", run.candle_version]);
  const list = element("dl", { class: "facts", "data-testid": "provenance" });
  for (const [term, value] of provenance) list.append(element("dt", {}, [term]), element("dd", {}, [value]));
  const tagList = element("dl", { class: "facts", "data-testid": "tags" });
  for (const [key, value] of run.tags) tagList.append(element("dt", {}, [key]), element("dd", {}, [value]));
  container.append(
    helpers.section("Provenance", [
      list,
      element("h3", {}, ["Tags"]),
      run.tags.length > 0 ? tagList : helpers.note("No tags."),
    ]),
  );

  const health = trace.health;
  const errors = health.issues.filter((issue) => issue.severity === "error");
  const gaps = health.issues.filter((issue) => issue.severity !== "error");
  function issueList(issues: typeof health.issues, testId: string): HTMLElement {
    const items = element("ul", { class: "issues", "data-testid": testId });
    for (const issue of issues) {
      items.append(
        element("li", { class: issue.severity === "error" ? "issue error" : "issue warning" }, [
          element("code", {}, [issue.code]),
          " ",
          issue.message,
        ]),
      );
    }
    return items;
  }
  const verdict = health.trusted
    ? "Trusted: the trace passed every structural check."
    : "Untrusted: " + errors.length + " structural error(s). Numbers below may be wrong.";
  container.append(
    helpers.section("Health", [
      element("p", { class: health.trusted ? "verdict ok" : "verdict bad", "data-testid": "verdict" }, [
        verdict,
      ]),
      element("h3", {}, ["Errors (" + errors.length + ")"]),
      errors.length > 0 ? issueList(errors, "errors") : helpers.note("No errors."),
      element("h3", {}, ["Gaps (" + gaps.length + ")"]),
      gaps.length > 0 ? issueList(gaps, "gaps") : helpers.note("No gaps in the evidence."),
      element("h3", {}, ["Coverage"]),
      (() => {
        const coverage = element("dl", { class: "facts compact", "data-testid": "coverage" });
        for (const [name, count] of health.coverage) {
          coverage.append(
            element("dt", {}, [name.replace(/_/g, " ")]),
            element("dd", {}, [helpers.groupDigits(count)]),
          );
        }
        return coverage;
      })(),
    ]),
  );

  const findings = element("ol", { class: "findings", "data-testid": "findings" });
  for (const finding of trace.findings) findings.append(element("li", {}, [finding]));
  container.append(
    helpers.section("Key findings", [
      trace.findings.length > 0 ? findings : helpers.note("Nothing to report."),
    ]),
  );

  if (trace.reductions.length > 0) {
    const reductions = element("ul", { "data-testid": "reductions" });
    for (const reduction of trace.reductions) reductions.append(element("li", {}, [reduction]));
    container.append(
      helpers.section("How this report was reduced", [
        helpers.note("This trace is large; some views show aggregates or samples so the page stays fast."),
        reductions,
      ]),
    );
  }
}
