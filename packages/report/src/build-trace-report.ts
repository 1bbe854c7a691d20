import { analyzeMemory } from "@cg/memory";
import { analyzeHealth, spanCosts, summarize, type TraceDocument } from "@cg/parser";
import { compareCodePoints } from "@cg/schema";
import { buildFindings } from "./build-findings.js";
import { buildGradientTable } from "./build-gradients.js";
import { buildMemoryReport } from "./build-memory.js";
import { buildOperatorReport } from "./build-operators.js";
import { buildSpanCostTable } from "./build-span-costs.js";
import { buildTimeline } from "./build-timeline.js";
import { toExact } from "./exact-number.js";
import type { ReportLimits } from "./report-limits.js";
import type { RunReport, TraceReport } from "./report-payload.js";

function runReport(document: TraceDocument): RunReport {
  const run = document.run;
  const report: RunReport = {
    run_id: run.run_id,
    correlation_id: run.correlation_id,
    entrypoint: run.entrypoint,
    phase: run.phase,
    timestamp: run.timestamp,
    capture_step: toExact(run.capture_step),
    warmup_steps: toExact(run.warmup_steps),
    device: run.device,
    measured_region_device_synchronized: run.measured_region_device_synchronized,
    timing_mode: run.timing_mode,
    tags: Object.entries(run.tags).sort(([left], [right]) => compareCodePoints(left, right)),
  };
  if (run.candle_version !== undefined) report.candle_version = run.candle_version;
  return report;
}

/** Everything one trace contributes to the page, from the analyses of @cg/parser and @cg/memory. */
export function buildTraceReport(document: TraceDocument, label: string, limits: ReportLimits): TraceReport {
  const health = analyzeHealth(document);
  const memory = analyzeMemory({
    memory: document.memory,
    spans: document.spans,
    device_memory: document.device_memory,
  });
  const costs = spanCosts(document);
  const summary = summarize(document, { memory });
  const timeline = buildTimeline(document, costs, limits);
  const spanCostTable = buildSpanCostTable(costs, limits);
  const operators = buildOperatorReport(document, limits);
  const memoryReport = buildMemoryReport(document, memory, limits);
  const gradients = buildGradientTable(document, limits);

  const reductions: string[] = [];
  if (timeline.spans.length < timeline.spans_total) {
    reductions.push(
      `Timeline: ${timeline.spans.length} of ${timeline.spans_total} spans drawn (upper levels first, then the longest).`,
    );
  }
  if (timeline.ops_aggregated) {
    reductions.push(
      `Timeline: ${timeline.ops_total} ops folded into ${timeline.ops.length} marks, one per span and op name.`,
    );
  }
  if (spanCostTable.rows.length < spanCostTable.rows_total) {
    reductions.push(
      `Span costs: the ${spanCostTable.rows.length} most expensive of ${spanCostTable.rows_total} paths.`,
    );
  }
  for (const series of memoryReport.series) {
    if (series.points.length < series.points_total) {
      reductions.push(
        `Memory on ${series.device}: ${series.points.length} of ${series.points_total} timeline points (peaks kept).`,
      );
    }
  }
  for (const series of memoryReport.device_memory) {
    if (series.points.length < series.points_total) {
      reductions.push(
        `Device memory on ${series.device}: ${series.points.length} of ${series.points_total} samples.`,
      );
    }
  }
  if (memoryReport.peak_allocations.length < memoryReport.peak_allocations_total) {
    reductions.push(
      `Peak: the ${memoryReport.peak_allocations.length} largest of ${memoryReport.peak_allocations_total} live allocations.`,
    );
  }
  if (operators.rows.length < operators.rows_total) {
    reductions.push(`Operators: the ${operators.rows.length} costliest of ${operators.rows_total}.`);
  }
  if (gradients.rows.length < gradients.rows_total) {
    reductions.push(`Gradients: ${gradients.rows.length} of ${gradients.rows_total} listed, problems first.`);
  }

  return {
    label,
    run: runReport(document),
    health: {
      trusted: health.trusted,
      issues: health.issues.map(({ severity, code, message }) => ({ severity, code, message })),
      coverage: Object.entries(health.coverage).map(([name, count]) => [name, toExact(count)]),
    },
    summary: {
      op_count: summary.op_count,
      total_ns: toExact(summary.total_ns),
      span_count: summary.span_count,
      root_span_count: summary.root_span_count,
      max_depth: summary.max_depth,
      alloc_count: summary.alloc_count,
      free_count: summary.free_count,
      peak_bytes: toExact(summary.peak_bytes),
    },
    findings: buildFindings(document, health, costs, memory, operators),
    timeline,
    spanCosts: spanCostTable,
    operators,
    memory: memoryReport,
    gradients,
    reductions,
  };
}
