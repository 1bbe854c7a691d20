import { analyzeMemory } from "@cg/memory";
import { analyzeHealth, operatorTable, spanCostColumns, summarize, type TraceDocument } from "@cg/parser";
import { GradientCollector } from "./build-gradients.js";
import { planTimeline, TimelineOpCollector } from "./build-timeline.js";
import { buildTraceReport } from "./build-trace-report.js";
import { deviceMemorySeries, memorySeries } from "./memory-series.js";
import type { ReportLimits } from "./report-limits.js";
import type { TraceReport } from "./report-payload.js";
import type { TraceReportInputs } from "./trace-report-inputs.js";

/** The report of a parsed trace, from the whole-document analyses of @cg/parser and @cg/memory. */
export function documentTraceReport(
  document: TraceDocument,
  label: string,
  limits: ReportLimits,
): TraceReport {
  const memory = analyzeMemory({
    memory: document.memory,
    spans: document.spans,
    device_memory: document.device_memory,
  });
  const { self_times: _selfTimes, ...summary } = summarize(document, { memory });
  const points = memorySeries(limits);
  for (const point of memory.timeline) points.push(point);
  const samples = deviceMemorySeries(limits);
  for (const sample of document.device_memory) samples.push(sample);
  const gradients = new GradientCollector(limits);
  for (const gradient of document.gradients) gradients.push(gradient);
  const inputs: TraceReportInputs = {
    run: document.run,
    health: analyzeHealth(document),
    summary,
    memory,
    memorySeries: points.byDevice,
    deviceMemory: samples.byDevice,
    spans: spanCostColumns(document),
    operators: operatorTable(document, { limit: limits.operatorRows }),
    gradients,
    notes: [],
  };
  const plan = planTimeline(inputs.spans, limits);
  const ops = new TimelineOpCollector(plan, limits);
  for (const op of document.ops) ops.push(op);
  return buildTraceReport(inputs, plan, ops, label, limits);
}
