// The report of a trace read as a stream, never as a document. Two reads, each folding events into
// compact or bounded aggregates: the first is the parser's comparison side with its summary (health,
// memory figures, span costs, the operator table with 8 bytes per op for exact percentiles,
// attribution and gradient facts), plus the downsampled memory timeline, gradient ranks and device
// samples; the second, once the flame chart's spans are chosen, reads the op columns and makes an
// event object only for an op of a drawn span. Memory grows with spans and ops, not the file.
import {
  type ComparisonSide,
  type ReadOptions,
  readColumnBatches,
  type StreamSummaryOptions,
  streamedSideAndSummary,
  type TraceSource,
} from "@cg/parser";
import { EVENT_KINDS, type FieldColumn, type KindColumns, type OpEvent } from "@cg/schema/core";
import { GradientCollector } from "./build-gradients.js";
import { planTimeline, TimelineOpCollector } from "./build-timeline.js";
import { buildTraceReport } from "./build-trace-report.js";
import { deviceMemorySeries, memorySeries } from "./memory-series.js";
import type { ReportLimits } from "./report-limits.js";
import type { TraceReport } from "./report-payload.js";
import type { TraceReportInputs } from "./trace-report-inputs.js";

/** How a streamed trace is read: the reader's and `summarizeStream`'s options. */
export type StreamReadOptions = Omit<StreamSummaryOptions, "onEvent" | "rankLimit" | "spanCosts">;

const OP = EVENT_KINDS.indexOf("op");

/**
 * The report of a trace read twice as a stream, equal to the document's report, and the facts a
 * comparison needs of it (per path, gradient and operator, never per event).
 */
export async function streamTraceReport(
  read: () => TraceSource,
  label: string,
  limits: ReportLimits,
  options: StreamReadOptions = {},
): Promise<{ report: TraceReport; side: ComparisonSide }> {
  // First read: the comparison side and the summary (span costs included), with the memory
  // timeline's points, gradients and device samples.
  const samples = deviceMemorySeries(limits);
  const gradients = new GradientCollector(limits);
  const points = memorySeries(limits);
  const { side, summary: streamed } = await streamedSideAndSummary(read, {
    ...options,
    percentiles: true,
    onMemoryPoint: (point) => points.push(point),
    // The kinds read as events; every other kind is folded from the columns.
    eventKinds: ["device_memory", "gradient"],
    onEvent: (event) => {
      if (event.kind === "device_memory") samples.push(event);
      else if (event.kind === "gradient") gradients.push(event);
    },
  });
  const spanCosts = streamed.spanCosts;
  if (spanCosts === undefined) throw new Error(`${label}: the summary returned no span costs`);
  const plan = planTimeline(spanCosts, limits);

  // Second read, once the drawn spans are known: their op marks. Only op lines are decoded (the
  // others are skipped by their first bytes); diagnostics were reported by the first read.
  const ops = new TimelineOpCollector(plan, limits);
  const readOptions: ReadOptions = { kinds: ["op"] };
  if (options.mode !== undefined) readOptions.mode = options.mode;
  if (options.maxLineLength !== undefined) readOptions.maxLineLength = options.maxLineLength;
  if (options.file !== undefined) readOptions.file = options.file;
  for await (const batch of readColumnBatches(read(), readOptions)) {
    const spanIds = (batch.columns[OP] as KindColumns).byKey.get("span_id") as FieldColumn;
    for (let at = 0; at < batch.size; at++) {
      if (batch.kinds[at] !== OP) continue;
      const spanId = batch.strings[spanIds.values[batch.rows[at] as number] as number] as string;
      if (ops.draws(spanId)) ops.push(batch.event(at) as OpEvent);
      else ops.skip();
    }
  }

  const operatorTable = side.operators;
  const inputs: TraceReportInputs = {
    run: streamed.run,
    health: streamed.health,
    summary: streamed.summary,
    memory: streamed.memory,
    memorySeries: points.byDevice,
    deviceMemory: samples.byDevice,
    spans: spanCosts,
    operators: { ...operatorTable, operators: operatorTable.operators.slice(0, limits.operatorRows) },
    gradients,
    notes: streamed.notes.map((note) => `Memory: ${note}.`),
  };
  return { report: buildTraceReport(inputs, plan, ops, label, limits), side };
}
