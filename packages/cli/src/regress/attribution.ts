// Attribution of a flagged change: why the representative candidate run differs from the
// representative baseline run, by the same attribution `cg-trace compare` gives (step-time parts
// and peak-memory parts that add up to the deltas exactly).
import { existsSync } from "node:fs";
import type { Comparison, ComparisonAttribution } from "@cg/parser";
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
  /** Where the figures come from: `compare`'s attribution of the two traces. */
  method?: "attribution";
  /** The whole attribution of the pair (time and peak parts, unmatched and other rows). */
  explanation?: ComparisonAttribution;
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

/** The streamed comparison of the two traces (`compareTraceFiles`) and its attribution. */
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
  const { attribution } = comparison;
  if (attribution === undefined) {
    return { ...base, unavailable: "the traces carry no attribution inputs (no measured region)" };
  }
  // The named time parts, largest first within each kind, as the table and annotations show them.
  const parts: AttributionPart[] = [];
  for (const kind of ["span", "op"] as const) {
    for (const part of attribution.time.parts.filter((each) => each.kind === kind).slice(0, PARTS_PER_KIND)) {
      const baselineNs = Number(part.baseline_ns);
      const delta = Number(part.delta_ns);
      parts.push({
        kind,
        name: part.label,
        baseline: baselineNs,
        candidate: Number(part.candidate_ns),
        delta,
        ...(baselineNs > 0 ? { deltaPercent: (delta / baselineNs) * 100 } : {}),
      });
    }
  }
  return {
    ...base,
    method: "attribution",
    explanation: attribution,
    totalDeltaNs: Number(attribution.time.delta_ns),
    peakDeltaBytes: Number(attribution.peak.delta_bytes),
    parts,
  };
}

/** The attribution of one flagged change between two representative runs. */
export const attributeChange: (
  baseline: RunFile,
  candidate: RunFile,
  context: CliContext,
) => Promise<ChangeAttribution> = compareAttribution;
