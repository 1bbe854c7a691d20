// The report of a trace read as a stream, never as a document. Two reads, each folding events into
// compact or bounded aggregates: the first makes the summary, health and memory figures (with the
// downsampled memory timeline), the span table (tens of bytes per span), the gradient ranks and
// device samples; the second, once the flame chart's spans are chosen, their op marks and the
// operator table (8 bytes per op for exact percentiles). Memory grows with spans and ops, not the file.
import {
  AttributionSideBuilder,
  addGradient,
  type ComparisonSide,
  type GradientSide,
  OperatorAccumulator,
  type ReadOptions,
  readTraceBatches,
  SpanCostCollector,
  SpanKeyCache,
  type StreamSummaryOptions,
  spanPathKey,
  summarizeColumns,
  type TraceSource,
  unknownSpanKey,
} from "@cg/parser";
import { GradientCollector } from "./build-gradients.js";
import { planTimeline, TimelineOpCollector } from "./build-timeline.js";
import { buildTraceReport } from "./build-trace-report.js";
import { deviceMemorySeries, memorySeries } from "./memory-series.js";
import type { ReportLimits } from "./report-limits.js";
import type { TraceReport } from "./report-payload.js";
import type { TraceReportInputs } from "./trace-report-inputs.js";

/** How a streamed trace is read: the reader's and `summarizeStream`'s options. */
export type StreamReadOptions = Omit<StreamSummaryOptions, "onEvent" | "rankLimit">;

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
  // First read: summary, health and memory figures with the memory timeline's points, the span
  // table, gradients, device samples.
  const spans = new SpanCostCollector();
  const samples = deviceMemorySeries(limits);
  const gradients = new GradientCollector(limits);
  const gradientFacts = new Map<string, GradientSide>();
  const points = memorySeries(limits);
  const streamed = await summarizeColumns(read(), {
    ...options,
    onMemoryPoint: (point) => points.push(point),
    // The kinds read as events; memory, tensors and edges are folded from the columns.
    eventKinds: ["span_start", "span_end", "op", "device_memory", "gradient"],
    onEvent: (event) => {
      spans.push(event);
      if (event.kind === "device_memory") samples.push(event);
      else if (event.kind === "gradient") {
        gradients.push(event);
        addGradient(gradientFacts, event);
      }
    },
  });
  const spanCosts = spans.finish(options.compat === undefined ? {} : { compat: options.compat });
  const plan = planTimeline(spanCosts, limits);

  // Second read, once the drawn spans are known: their op marks and the operator table. Split so,
  // neither read holds all the aggregates at once.
  const ops = new TimelineOpCollector(plan, limits);
  const operators = new OperatorAccumulator();
  // What the comparison's attribution needs: own times, op times by span path key and signature.
  const attribution = new AttributionSideBuilder();
  const keys = new SpanKeyCache();
  const keyOf = (row: number): string =>
    keys.of(row, (at) =>
      spanPathKey({ path: spanCosts.path(at), kind: spanCosts.kind(at), step: spanCosts.step(at) }),
    );
  const measuredSpans = new Set<string>();
  // The reader's own options only: diagnostics were reported by the first read, which checked
  // every line; this one decodes only the span and op lines (tensor and memory lines, three in
  // four of a writer's trace, are skipped by their first bytes).
  const readOptions: ReadOptions = { kinds: ["span_start", "span_end", "op"] };
  if (options.mode !== undefined) readOptions.mode = options.mode;
  if (options.maxLineLength !== undefined) readOptions.maxLineLength = options.maxLineLength;
  if (options.file !== undefined) readOptions.file = options.file;
  // Batches: one promise per few hundred events rather than one per event (less garbage).
  for await (const batch of readTraceBatches(read(), { ...readOptions, batchSize: 256 })) {
    for (const { event } of batch) {
      operators.addEvent(event, measuredSpans);
      if (event.kind === "op") {
        ops.push(event);
        const row = spanCosts.rowOf(event.span_id);
        if (row >= 0) attribution.addOp(keyOf(row), event);
      }
    }
  }

  const operatorTable = operators.result();
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
  // What a comparison needs of this trace (the parser's `documentSide`, from the streamed figures).
  const spanTotals = new Map<string, bigint>();
  const allKeys = new Set<string>();
  for (let row = 0; row < spanCosts.size; row++) {
    const key = keyOf(row);
    allKeys.add(key);
    if (!spanCosts.inMeasuredSubtree(row)) continue;
    spanTotals.set(key, (spanTotals.get(key) ?? 0n) + BigInt(spanCosts.totalNs(row)));
    attribution.addSpan(key, spanCosts.selfNs(row));
  }
  const side: ComparisonSide = {
    run: streamed.run,
    trusted: streamed.health.trusted,
    total_ns: streamed.summary.total_ns,
    peak_bytes: streamed.memory.peak_bytes,
    span_totals: spanTotals,
    gradients: gradientFacts,
    operators: operatorTable,
    attribution: attribution.finish(
      streamed.summary.total_ns,
      streamed.memory,
      (spanId) => {
        const row = spanCosts.rowOf(spanId);
        return row >= 0 ? keyOf(row) : unknownSpanKey(spanId);
      },
      allKeys,
    ),
  };
  return { report: buildTraceReport(inputs, plan, ops, label, limits), side };
}
