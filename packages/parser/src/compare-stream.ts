// `compareTraces` without documents: each trace is streamed once (a second read only when its ops
// must be grouped by a path that was not final when they arrived), and reduced to what a comparison
// needs: run metadata, trust, totals, per-path span totals, gradient facts and the operator table.
// While a trace is read, memory is the streaming summary's (its span table serves the per-path
// totals too), a few typed columns per span and a row per operator (no per-op durations: a
// comparison needs no percentiles).
import type { EventKind, TraceEvent } from "@cg/schema/core";
import { type CompareOptions, type Comparison, compareSidesWith } from "./compare-traces.js";
import type { ComparisonSide } from "./comparison-side.js";
import { ComparisonSideFold } from "./comparison-side-fold.js";
import { compareOperatorRows } from "./operator-compare.js";
import type { OperatorAccumulator } from "./operator-stats.js";
import { readOptionsOf } from "./query-stream.js";
import { StreamedOperators } from "./streamed-operators.js";
import { type StreamSummary, type StreamSummaryOptions, summarizeSharingSpans } from "./summarize-stream.js";
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

/** What a reader of a side and its summary adds for figures of its own, from the same read. */
export interface SideReadOptions extends SideOptions {
  /** Keep every op's duration for the operator table's percentiles (default false: a comparison reads none). */
  percentiles?: boolean;
  /** Sees every accepted event of `eventKinds`, in file order, after the side and summary took it. */
  onEvent?: (event: TraceEvent) => void;
  /** The kinds `onEvent` is given (default none); the others are folded from the columns. */
  eventKinds?: readonly EventKind[];
}

/** The comparison side of a trace, read as a stream. */
export async function streamedSide(
  open: () => TraceSource,
  options: SideOptions = {},
): Promise<ComparisonSide> {
  const { operators, summary: _summary, ...side } = await readSide(open, options);
  return { ...side, operators: operators.result() };
}

/**
 * The comparison side of a trace and its summary (with `spanCosts`) from one streamed read (a
 * second only when ops must be grouped by a path not final when they came): what a report of the
 * trace needs beside its drawing, without folding the side a second time.
 */
export async function streamedSideAndSummary(
  open: () => TraceSource,
  options: SideReadOptions = {},
): Promise<{ side: ComparisonSide; summary: StreamSummary }> {
  const { operators, summary, ...side } = await readSide(open, options);
  return { side: { ...side, operators: operators.result() }, summary };
}

/** A side with its operators still as the accumulator's columns (no row objects), and its summary. */
async function readSide(
  open: () => TraceSource,
  options: SideReadOptions,
): Promise<Omit<ComparisonSide, "operators"> & { operators: OperatorAccumulator; summary: StreamSummary }> {
  const {
    spanLimit: _spanLimit,
    gradientLimit: _gradientLimit,
    operatorLimit: _operatorLimit,
    operatorGroupBy = [],
    percentiles = false,
    onEvent,
    eventKinds = [],
    ...summaryOptions
  } = options;
  const fold = new ComparisonSideFold();
  const operators = new StreamedOperators(
    operatorGroupBy,
    operatorGroupBy.includes("path") ? fold.spans : undefined,
    percentiles,
  );
  // Only gradients (and the caller's kinds) are read as events; ops come from the op columns, the
  // rest is folded there.
  const theirs = new Set(eventKinds);
  const stream = await summarizeSharingSpans(
    open(),
    {
      ...summaryOptions,
      spanCosts: true,
      onEvent: (event) => {
        // Ops reach the side from their columns (`onBatch`), even when the caller reads them too.
        if (event.kind === "gradient") fold.add(event);
        if (theirs.has(event.kind)) onEvent?.(event);
      },
      eventKinds: [...new Set([...SIDE_KINDS, ...eventKinds])],
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
    summary: stream,
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
  const { summary: _baselineSummary, ...baseline } = await readSide(openBaseline, {
    ...shared,
    ...(baselineFile === undefined ? {} : { file: baselineFile }),
  });
  const { summary: _candidateSummary, ...candidate } = await readSide(openCandidate, {
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
