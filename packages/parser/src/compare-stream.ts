// `compareTraces` without documents: each trace is streamed once (a second read only when its ops
// must be grouped by a path that was not final when they arrived), and reduced to what a comparison
// needs: run metadata, trust, totals, per-path span totals, gradient facts and the operator table.
// While a trace is read, memory is the streaming summary's (its span table serves the per-path
// totals too), a few typed columns per span and a row per operator (no per-op durations: a
// comparison needs no percentiles).
import type { OpEvent, TraceEvent } from "@cg/schema";
import { type AttributedOp, AttributionSideBuilder, SpanKeyCache } from "./compare-attribution-side.js";
import {
  addGradient,
  type CompareOptions,
  type Comparison,
  type ComparisonSide,
  compareSidesWith,
  type GradientSide,
  spanPathKey,
  unknownSpanKey,
} from "./compare-traces.js";
import { compareOperatorRows } from "./operator-compare.js";
import type { OperatorAccumulator } from "./operator-stats.js";
import { readOptionsOf } from "./query-stream.js";
import { SpanPaths } from "./span-paths.js";
import type { SpanTable } from "./span-table.js";
import { measuredSubtree, SpanOpTotals, spanPath, spanTableTotals } from "./span-table-costs.js";
import { spanTableIssues } from "./span-table-health.js";
import { StreamedOperators } from "./streamed-operators.js";
import { type StreamSummaryOptions, summarizeSharingSpans } from "./summarize-stream.js";
import type { TraceSource } from "./trace-source.js";

export interface CompareStreamOptions
  extends CompareOptions,
    Omit<StreamSummaryOptions, "rankLimit" | "onEvent" | "compat" | "file"> {
  /** The names errors give each trace (default: the path, or a generic label). */
  baselineFile?: string;
  candidateFile?: string;
}

type SideOptions = Omit<CompareStreamOptions, "baselineFile" | "candidateFile"> & { file?: string };

/** The comparison side of a trace, read as a stream. */
export async function streamedSide(
  open: () => TraceSource,
  options: SideOptions = {},
): Promise<ComparisonSide> {
  const { operators, ...side } = await readSide(open, options);
  return { ...side, operators: operators.result() };
}

/** A side with its operators still as the accumulator's columns (no row objects). */
async function readSide(
  open: () => TraceSource,
  options: SideOptions,
): Promise<Omit<ComparisonSide, "operators"> & { operators: OperatorAccumulator }> {
  const {
    spanLimit: _spanLimit,
    gradientLimit: _gradientLimit,
    operatorLimit: _operatorLimit,
    operatorGroupBy = [],
    ...summaryOptions
  } = options;
  const spans = new SpanPaths();
  const gradients = new Map<string, GradientSide>();
  // A comparison reads calls, totals and means: no per-op durations are kept for percentiles.
  const operators = new StreamedOperators(
    operatorGroupBy,
    operatorGroupBy.includes("path") ? spans : undefined,
    false,
  );
  // Own op time per span row; ops of spans not started yet wait by span id.
  const opTotals = new SpanOpTotals();
  const earlyOps = new Map<string, bigint>();
  const attribution = new AttributionSideBuilder();
  const keys = new SpanKeyCache();
  // Ops whose span path is not final yet (an op before its span, a parent that starts late).
  const pendingOps: { spanId: string; op: AttributedOp }[] = [];
  const onEvent = (event: TraceEvent): void => {
    operators.add(event);
    if (event.kind === "op") {
      const table = spans.table;
      const row = table.ids.get(event.span_id);
      if (row >= 0 && row < table.size) opTotals.add(row, event.duration_ns, 0);
      else earlyOps.set(event.span_id, (earlyOps.get(event.span_id) ?? 0n) + BigInt(event.duration_ns));
      if (row >= 0 && row < table.size && spans.pathOf(event.span_id) !== undefined) {
        attribution.addOp(
          keys.of(row, (at) => tableKey(table, at)),
          event,
        );
      } else {
        pendingOps.push({ spanId: event.span_id, op: attributedOp(event) });
      }
    } else if (event.kind === "gradient") {
      addGradient(gradients, event);
    }
  };
  const stream = await summarizeSharingSpans(open(), { ...summaryOptions, onEvent }, (table) =>
    spans.use(table),
  );
  spans.complete();
  const table = spans.table;
  for (const [spanId, ns] of earlyOps) {
    const row = table.ids.get(spanId);
    if (row >= 0) opTotals.add(row, ns <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(ns) : ns, 0);
  }
  earlyOps.clear();

  const healthOptions = options.compat === undefined ? {} : { compat: options.compat };
  const structure = spanTableIssues(table, healthOptions, []);
  const { total, selfTime } = spanTableTotals(table, structure, opTotals, healthOptions);
  const inside = measuredSubtree(table, structure.offsets, structure.children);
  const spanTotals = new Map<string, bigint>();
  for (let row = 0; row < table.size; row++) {
    if (inside[row] === 0) continue;
    const key = keys.of(row, (at) => tableKey(table, at));
    spanTotals.set(key, (spanTotals.get(key) ?? 0n) + total(row));
    attribution.addSpan(key, selfTime(row));
  }
  for (const { spanId, op } of pendingOps) {
    const row = table.ids.get(spanId);
    if (row >= 0 && row < table.size)
      attribution.addOp(
        keys.of(row, (at) => tableKey(table, at)),
        op,
      );
  }
  pendingOps.length = 0;
  const keyOfSpan = (spanId: string): string => {
    const row = table.ids.get(spanId);
    return row >= 0 && row < table.size ? keys.of(row, (at) => tableKey(table, at)) : unknownSpanKey(spanId);
  };
  return {
    run: stream.run,
    trusted: stream.health.trusted,
    total_ns: stream.summary.total_ns,
    peak_bytes: stream.memory.peak_bytes,
    span_totals: spanTotals,
    gradients,
    operators: await operators.accumulated(open, readOptionsOf(options), stream.summary.total_ns),
    attribution: attribution.finish(stream.summary.total_ns, stream.memory, keyOfSpan, allKeys(table, keys)),
  };
}

/** Every span's path key (each distinct one once). */
function allKeys(table: SpanTable, keys: SpanKeyCache): Set<string> {
  const all = new Set<string>();
  for (let row = 0; row < table.size; row++) all.add(keys.of(row, (at) => tableKey(table, at)));
  return all;
}

/** The fields of an op that attribution keeps while its span path is not final. */
function attributedOp(op: OpEvent): AttributedOp {
  return {
    op_name: op.op_name,
    shape: op.shape,
    dtype: op.dtype,
    device: op.device,
    duration_ns: op.duration_ns,
  };
}

/** A table row's span path key. */
function tableKey(table: SpanTable, row: number): string {
  return spanPathKey({ path: spanPath(table, row), kind: table.kind(row), step: table.step(row) });
}
/**
 * Compares two traces read as streams, one after the other: equal to `compareTraces` on their
 * documents. `openBaseline` / `openCandidate` give each trace's bytes (a path, or a fresh stream).
 */
export async function compareTraceFiles(
  openBaseline: () => TraceSource,
  openCandidate: () => TraceSource,
  options: CompareStreamOptions = {},
): Promise<Comparison> {
  const { baselineFile, candidateFile, ...shared } = options;
  // One trace after the other: each holds a span table per span, so reading both at once would
  // double the memory of traces with many spans (measured: 328 MB instead of 248 MB on 1 M spans).
  const baseline = await readSide(openBaseline, {
    ...shared,
    ...(baselineFile === undefined ? {} : { file: baselineFile }),
  });
  const candidate = await readSide(openCandidate, {
    ...shared,
    ...(candidateFile === undefined ? {} : { file: candidateFile }),
  });
  // The operator tables are joined in column form: objects only for the `operatorLimit` kept rows.
  const operators = compareOperatorRows(
    baseline.operators.rows(),
    candidate.operators.rows(),
    options.operatorLimit ?? 50,
  );
  return compareSidesWith(baseline, candidate, options, operators);
}
