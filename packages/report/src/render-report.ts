import { compareTraces, type TraceDocument } from "@cg/parser";
import { buildComparison, COMPARISON_OPTIONS } from "./build-comparison.js";
import { capStrings } from "./cap-strings.js";
import { documentTraceReport } from "./document-report.js";
import { renderReportHtml } from "./render-html.js";
import { DEFAULT_REPORT_LIMITS, type ReportLimits } from "./report-limits.js";
import {
  type ComparisonReport,
  REPORT_PAYLOAD_SCHEMA,
  type ReportPayload,
  type TraceReport,
} from "./report-payload.js";

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

export function reportLimits(limits: Partial<ReportLimits> | undefined): ReportLimits {
  return { ...DEFAULT_REPORT_LIMITS, ...limits };
}

/** The payload around the traces' reports, with every long string cut once (see cap-strings). */
export function assemblePayload(
  title: string | undefined,
  candidate: TraceReport,
  baseline?: { report: TraceReport; comparison: ComparisonReport },
): ReportPayload {
  const payload: ReportPayload = {
    schema: REPORT_PAYLOAD_SCHEMA,
    title: title ?? `${candidate.run.entrypoint} — trace report`,
    candidate,
  };
  if (baseline !== undefined) {
    payload.baseline = baseline.report;
    payload.comparison = baseline.comparison;
  }
  const full = capStrings(payload);
  if (Object.keys(full).length > 0) payload.full_strings = full;
  return payload;
}

/** The JSON the page embeds, built from the analyses of @cg/parser and @cg/memory. */
export function buildReportPayload(
  document: TraceDocument,
  options: RenderReportOptions = {},
): ReportPayload {
  const limits = reportLimits(options.limits);
  const candidate = documentTraceReport(document, options.label ?? "trace", limits);
  return assemblePayload(
    options.title,
    candidate,
    options.baseline === undefined
      ? undefined
      : {
          report: documentTraceReport(options.baseline, options.baselineLabel ?? "baseline", limits),
          comparison: buildComparison(compareTraces(options.baseline, document, COMPARISON_OPTIONS)),
        },
  );
}

/** A single self-contained HTML page for a parsed trace: opens offline, from `file://`, in any browser. */
export function renderReport(document: TraceDocument, options: RenderReportOptions = {}): string {
  return renderReportHtml(buildReportPayload(document, options));
}
