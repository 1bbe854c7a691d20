import type { MemoryAnalysis } from "@cg/memory";
import type { HealthReport, SpanCost, TraceDocument } from "@cg/parser";
import { approximate } from "./exact-number.js";
import type { OperatorReport } from "./report-payload.js";

/** A duration in the unit that reads best: `850 ns`, `12.3 µs`, `4.56 ms`, `2.01 s`. */
export function humanDuration(nanoseconds: number | bigint | string): string {
  const value = approximate(typeof nanoseconds === "string" ? BigInt(nanoseconds) : nanoseconds);
  if (value < 1e3) return `${value} ns`;
  if (value < 1e6) return `${(value / 1e3).toPrecision(3)} µs`;
  if (value < 1e9) return `${(value / 1e6).toPrecision(3)} ms`;
  return `${(value / 1e9).toPrecision(3)} s`;
}

/** A byte count in binary units: `512 B`, `4.00 KiB`, `1.50 GiB`. */
export function humanBytes(bytes: number | bigint): string {
  let value = approximate(bytes);
  const units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(2)} ${units[unit]}`;
}

/** Short sentences for the overview, in the spirit of the reference's evidence findings. */
export function buildFindings(
  document: TraceDocument,
  health: HealthReport,
  costs: readonly SpanCost[],
  memory: MemoryAnalysis,
  operators?: OperatorReport,
): string[] {
  const findings: string[] = [];
  const errors = health.issues.filter((issue) => issue.severity === "error").length;
  if (!health.trusted)
    findings.push(`The trace is structurally untrusted (${errors} error(s)); treat its numbers with care.`);
  const slowest = costs
    .filter((cost) => cost.in_measured_subtree)
    .sort((left, right) => approximate(right.self_ns) - approximate(left.self_ns))
    .slice(0, 5);
  for (const cost of slowest) findings.push(`${cost.name}: ${humanDuration(cost.self_ns)} self time`);
  const top = operators?.rows[0];
  if (top !== undefined && top.calls > 0) {
    const share = top.share === null ? "" : `, ${(top.share * 100).toFixed(1)}% of the measured time`;
    findings.push(
      `Costliest operator: ${top.op_name}, ${humanDuration(top.total_ns)} over ${top.calls} call(s) (mean ${humanDuration(top.mean_ns)})${share}.`,
    );
  }
  if (approximate(memory.peak_bytes) > 0) {
    findings.push(
      `Peak logical memory ${humanBytes(memory.peak_bytes)} on ${memory.peak_device} at ${humanDuration(memory.peak_timestamp_ns)} into the capture.`,
    );
  }
  if (document.gradients.length > 0) {
    const attention = document.gradients.filter((gradient) => gradient.state !== "present").length;
    findings.push(`${document.gradients.length} gradient facts captured; ${attention} require attention`);
  }
  return findings;
}
