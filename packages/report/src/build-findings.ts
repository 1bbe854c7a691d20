import type { MemoryAnalysis } from "@cg/memory";
import type { HealthReport, SpanCost, TraceDocument } from "@cg/parser";
import { approximate } from "./exact-number.js";

function milliseconds(nanoseconds: number | bigint): string {
  return (approximate(nanoseconds) / 1e6).toFixed(2);
}

/** Short sentences for the overview, in the spirit of the reference's evidence findings. */
export function buildFindings(
  document: TraceDocument,
  health: HealthReport,
  costs: readonly SpanCost[],
  memory: MemoryAnalysis,
): string[] {
  const findings: string[] = [];
  const errors = health.issues.filter((issue) => issue.severity === "error").length;
  if (!health.trusted)
    findings.push(`The trace is structurally untrusted (${errors} error(s)); treat its numbers with care.`);
  const slowest = costs
    .filter((cost) => cost.in_measured_subtree)
    .sort((left, right) => approximate(right.self_ns) - approximate(left.self_ns))
    .slice(0, 5);
  for (const cost of slowest) findings.push(`${cost.name}: ${milliseconds(cost.self_ns)} ms self time`);
  if (approximate(memory.peak_bytes) > 0) {
    findings.push(
      `Peak logical memory ${memory.peak_bytes.toString()} bytes on ${memory.peak_device} at ${memory.peak_timestamp_ns.toString()} ns.`,
    );
  }
  if (document.gradients.length > 0) {
    const attention = document.gradients.filter((gradient) => gradient.state !== "present").length;
    findings.push(`${document.gradients.length} gradient facts captured; ${attention} require attention`);
  }
  return findings;
}
