// `compareTraces` without documents: each trace is streamed once (a second read only when its ops
// must be grouped by a path that was not final when they arrived), and reduced to what a comparison
// needs: run metadata, trust, totals, per-path span totals, gradient facts and the operator table.
// While a trace is read, memory is the streaming summary's (its span table serves the per-path
// totals too), a few typed columns per span and a row per operator (no per-op durations: a
// comparison needs no percentiles).
import type { EventKind } from "@cg/schema/core";
import { type CompareOptions, type Comparison, compareSidesWith } from "./compare-traces.js";
import type { ComparisonSide } from "./comparison-side.js";
import { ComparisonSideFold } from "./comparison-side-fold.js";
import { compareOperatorRows } from "./operator-compare.js";
import type { OperatorAccumulator } from "./operator-stats.js";
import { readOptionsOf } from "./query-stream.js";
import { StreamedOperators } from "./streamed-operators.js";
import { type StreamSummaryOptions, summarizeSharingSpans } from "./summarize-stream.js";
import type { TraceSource } from "./trace-source.js";

/** The kinds a comparison side reads as events: gradients (its ops are read from the columns). */
const SIDE_KINDS: readonly EventKind[] = ["gradient"];

export interface CompareStreamOptions
  extends CompareOptions,
    Omit<StreamSummaryOptions, "rankLimit" | "spanCosts" | "onEvent" | "compat" | "file"> {
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
  const fold = new ComparisonSideFold();
  // A comparison reads calls, totals and means: no per-op durations are kept for percentiles.
  const operators = new StreamedOperators(
    operatorGroupBy,
    operatorGroupBy.includes("path") ? fold.spans : undefined,
    false,
  );
  // Only gradients are read as events; ops come from the op columns, the rest is folded there.
  const stream = await summarizeSharingSpans(
    open(),
    {
      ...summaryOptions,
      spanCosts: true,
      onEvent: (event) => fold.add(event),
      eventKinds: SIDE_KINDS,
      onBatch: (batch) => {
        operators.addBatch(batch);
        fold.addOps(batch);
      },
    },
    (table) => fold.spans.use(table),
  );
  const { attribution, ...figures } = fold.finish(stream);
  return {
    ...figures,
    operators: await operators.accumulated(open, readOptionsOf(options), stream.summary.total_ns),
    attribution,
  };
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
