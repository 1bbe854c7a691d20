// Attribution of a flagged change: why the representative candidate run differs from the
// representative baseline run. One pluggable call, `attributeChange`, so a richer attribution of
// two traces replaces the comparison used here in one place.
import { existsSync } from "node:fs";
import type { Comparison } from "@cg/trace";
import type { CliContext } from "../cli-context.js";
import { CliError } from "../cli-error.js";
import { streamComparison } from "../trace-input.js";

/** One named part of a change, largest first. */
export interface AttributionPart {
  kind: "span" | "op";
  name: string;
  /** ns for spans and ops. */
  baseline: number;
  candidate: number;
  delta: number;
  deltaPercent?: number;
}

export interface ChangeAttribution {
  baselineRunId: string;
  candidateRunId: string;
  /** Absent when the two traces could not be read (e.g. a dataset without its trace files). */
  unavailable?: string;
  /** Where the figures come from. */
  method?: "compare";
  totalDeltaNs?: number;
  peakDeltaBytes?: number;
  /** Spans of the measured subtree and operators whose time changed most. */
  parts: AttributionPart[];
}

export interface RunFile {
  runId: string;
  file: string;
}

/** Most parts of each kind listed. */
const PARTS_PER_KIND = 5;

/** The streamed comparison of the two traces (`compareTraceFiles`): top span and operator deltas. */
async function compareAttribution(
  baseline: RunFile,
  candidate: RunFile,
  context: CliContext,
): Promise<ChangeAttribution> {
  const base = { baselineRunId: baseline.runId, candidateRunId: candidate.runId, parts: [] };
  for (const side of [baseline, candidate]) {
    if (!existsSync(side.file))
      return { ...base, unavailable: `trace file of ${side.runId} not found: ${side.file}` };
  }
  let comparison: Comparison;
  try {
    comparison = await streamComparison(baseline.file, candidate.file, context);
  } catch (error) {
    if (CliError.isInstance(error)) return { ...base, unavailable: error.message };
    throw error;
  }
  const percent = (value: number | undefined) => (value === undefined ? {} : { deltaPercent: value });
  const spans: AttributionPart[] = comparison.span_deltas.slice(0, PARTS_PER_KIND).map((delta) => ({
    kind: "span",
    name: delta.path,
    baseline: Number(delta.baseline_ns),
    candidate: Number(delta.candidate_ns),
    delta: Number(delta.delta_ns),
    ...percent(delta.delta_percent),
  }));
  const ops: AttributionPart[] = comparison.operators.deltas.slice(0, PARTS_PER_KIND).map((delta) => ({
    kind: "op",
    name: delta.status === "both" ? delta.op_name : `${delta.op_name} (${delta.status})`,
    baseline: Number(delta.baseline_total_ns),
    candidate: Number(delta.candidate_total_ns),
    delta: Number(delta.total_delta_ns),
    ...percent(delta.total_delta_percent),
  }));
  return {
    ...base,
    method: "compare",
    totalDeltaNs: Number(comparison.total_delta_ns),
    peakDeltaBytes: Number(comparison.peak_delta_bytes),
    parts: [...spans, ...ops],
  };
}

/**
 * THE place to swap: the attribution of one flagged change between two representative runs.
 * Today the streamed `compare` deltas of their traces; a dedicated attribution of two traces
 * (step-time parts and peak-memory parts that add up to the deltas) plugs in here.
 */
export const attributeChange: (
  baseline: RunFile,
  candidate: RunFile,
  context: CliContext,
) => Promise<ChangeAttribution> = compareAttribution;
