import { approximate } from "./exact-number.js";
import type { OperatorReport } from "./report-payload.js";
import type { ReportSpans } from "./report-spans.js";
import type { TraceReportInputs } from "./trace-report-inputs.js";

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

/** The `count` spans of the measured subtree with the most self time, in document order on ties. */
function slowestSpans(spans: ReportSpans, count: number): number[] {
  const kept: number[] = [];
  const order = spans.rowsInIdOrder();
  for (let index = 0; index < order.length; index++) {
    const row = order[index] as number;
    if (!spans.inMeasuredSubtree(row)) continue;
    const self = approximate(spans.selfNs(row));
    let at = kept.length;
    while (at > 0 && approximate(spans.selfNs(kept[at - 1] as number)) < self) at--;
    if (at < count) {
      kept.splice(at, 0, row);
      if (kept.length > count) kept.pop();
    }
  }
  return kept;
}

/** Short sentences for the overview, in the spirit of the reference's evidence findings. */
export function buildFindings(inputs: TraceReportInputs, operators: OperatorReport): string[] {
  const { health, spans, memory, gradients } = inputs;
  const findings: string[] = [];
  const errors = health.issues.filter((issue) => issue.severity === "error").length;
  if (!health.trusted)
    findings.push(`The trace is structurally untrusted (${errors} error(s)); treat its numbers with care.`);
  for (const row of slowestSpans(spans, 5)) {
    findings.push(`${spans.name(row)}: ${humanDuration(spans.selfNs(row))} self time`);
  }
  const top = operators.rows[0];
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
  if (gradients.total > 0) {
    findings.push(`${gradients.total} gradient facts captured; ${gradients.problems} require attention`);
  }
  return findings;
}
