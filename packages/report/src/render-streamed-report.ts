import { compareSides } from "@cg/parser";
import { buildComparison, COMPARISON_OPTIONS } from "./build-comparison.js";
import { renderReportHtml } from "./render-html.js";
import { assemblePayload, type RenderReportOptions, reportLimits } from "./render-report.js";
import type { ReportPayload } from "./report-payload.js";
import { type ReportSource, sourceReader } from "./report-source.js";
import { type StreamReadOptions, streamTraceReport } from "./stream-report.js";

export interface StreamedReportOptions extends Omit<RenderReportOptions, "baseline"> {
  /** A baseline trace to compare against, read the same way; adds the Comparison view. */
  baseline?: ReportSource;
  /** How the trace is read (strict or lenient, file label, span budget, reorder window, compat). */
  read?: StreamReadOptions;
  /** For the baseline, what differs from `read` (its `file` label, say). */
  baselineRead?: StreamReadOptions;
}

/**
 * The payload of `buildReportPayload`, without parsing the trace into a document: the trace is
 * read twice as a stream, and memory grows with its spans, not its size. On any trace whose memory
 * events come within the reorder window, it equals `buildReportPayload` of the parsed trace.
 */
export async function buildStreamedReportPayload(
  source: ReportSource,
  options: StreamedReportOptions = {},
): Promise<ReportPayload> {
  const limits = reportLimits(options.limits);
  const candidate = await streamTraceReport(
    sourceReader(source),
    options.label ?? "trace",
    limits,
    options.read,
  );
  if (options.baseline === undefined) return assemblePayload(options.title, candidate.report);
  const baseline = await streamTraceReport(
    sourceReader(options.baseline),
    options.baselineLabel ?? "baseline",
    limits,
    { ...options.read, ...options.baselineRead },
  );
  return assemblePayload(options.title, candidate.report, {
    report: baseline.report,
    comparison: buildComparison(compareSides(baseline.side, candidate.side, COMPARISON_OPTIONS)),
  });
}

/** `renderReport` of a trace read as a stream (see `buildStreamedReportPayload`). */
export async function renderStreamedReport(
  source: ReportSource,
  options: StreamedReportOptions = {},
): Promise<string> {
  return renderReportHtml(await buildStreamedReportPayload(source, options));
}
