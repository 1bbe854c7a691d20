import { compareCodePoints, type RunMetadata } from "@cg/schema/core";
import { buildFindings } from "./build-findings.js";
import { buildMemoryReport } from "./build-memory.js";
import { buildOperatorReport } from "./build-operators.js";
import { buildSpanCostTable } from "./build-span-costs.js";
import { buildTimeline, type TimelineOpCollector, type TimelinePlan } from "./build-timeline.js";
import { toExact } from "./exact-number.js";
import type { ReportLimits } from "./report-limits.js";
import type { RunReport, TraceReport } from "./report-payload.js";
import type { TraceReportInputs } from "./trace-report-inputs.js";

function runReport(run: RunMetadata): RunReport {
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

/**
 * Everything one trace contributes to the page, from its inputs (a document's or a stream's), the
 * timeline planned from its spans and the op marks collected for that plan.
 */
export function buildTraceReport(
  inputs: TraceReportInputs,
  plan: TimelinePlan,
  timelineOps: TimelineOpCollector,
  label: string,
  limits: ReportLimits,
): TraceReport {
  const { health, summary } = inputs;
  const timeline = buildTimeline(inputs.spans, plan, timelineOps);
  const spanCostTable = buildSpanCostTable(inputs.spans, limits);
  const operators = buildOperatorReport(inputs.operators);
  const memoryReport = buildMemoryReport(inputs, limits);
  const gradients = inputs.gradients.table();

  const reductions: string[] = [...inputs.notes];
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
    run: runReport(inputs.run),
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
    findings: buildFindings(inputs, operators),
    timeline,
    spanCosts: spanCostTable,
    operators,
    memory: memoryReport,
    gradients,
    reductions,
  };
}
