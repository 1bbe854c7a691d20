export { embedJson } from "./embed-json.js";
export { escapeHtml } from "./escape-html.js";
export type { ExactNumber } from "./exact-number.js";
export { renderReportHtml } from "./render-html.js";
export { buildReportPayload, type RenderReportOptions, renderReport } from "./render-report.js";
export {
  buildStreamedReportPayload,
  renderStreamedReport,
  type StreamedReportOptions,
} from "./render-streamed-report.js";
export { DEFAULT_REPORT_LIMITS, type ReportLimits } from "./report-limits.js";
export * from "./report-payload.js";
export type { ReportSource } from "./report-source.js";
export type { StreamReadOptions } from "./stream-report.js";
export { renderTrendHtml } from "./trend/render-trend.js";
export type {
  TrendPageInput,
  TrendRun,
  TrendSeries,
  TrendStatus,
  TrendUnit,
} from "./trend/trend-input.js";
