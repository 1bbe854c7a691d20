import type { TraceDocument } from "@cg/parser";
import { buildComparison } from "./build-comparison.js";
import { buildTraceReport } from "./build-trace-report.js";
import { capStrings } from "./cap-strings.js";
import { renderReportHtml } from "./render-html.js";
import { DEFAULT_REPORT_LIMITS, type ReportLimits } from "./report-limits.js";
import { REPORT_PAYLOAD_SCHEMA, type ReportPayload } from "./report-payload.js";

export interface RenderReportOptions {
  /** Page title; defaults to the entrypoint. */
  title?: string;
  /** Display name of the trace (e.g. its file name). */
  label?: string;
  /** A baseline trace to compare against; adds the Comparison view. */
  baseline?: TraceDocument;
  baselineLabel?: string;
  /** Caps for large traces (see `DEFAULT_REPORT_LIMITS`). */
  limits?: Partial<ReportLimits>;
}

/** The JSON the page embeds, built from the analyses of @cg/parser and @cg/memory. */
export function buildReportPayload(
  document: TraceDocument,
  options: RenderReportOptions = {},
): ReportPayload {
  const limits: ReportLimits = { ...DEFAULT_REPORT_LIMITS, ...options.limits };
  const candidate = buildTraceReport(document, options.label ?? "trace", limits);
  const payload: ReportPayload = {
    schema: REPORT_PAYLOAD_SCHEMA,
    title: options.title ?? `${document.run.entrypoint} — trace report`,
    candidate,
  };
  if (options.baseline !== undefined) {
    payload.baseline = buildTraceReport(options.baseline, options.baselineLabel ?? "baseline", limits);
    payload.comparison = buildComparison(options.baseline, document);
  }
  const full = capStrings(payload);
  if (Object.keys(full).length > 0) payload.full_strings = full;
  return payload;
}

/** A single self-contained HTML page for a parsed trace: opens offline, from `file://`, in any browser. */
export function renderReport(document: TraceDocument, options: RenderReportOptions = {}): string {
  return renderReportHtml(buildReportPayload(document, options));
}
