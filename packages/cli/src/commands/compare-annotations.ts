// `compare --format github`: workflow commands GitHub Actions turns into annotations on the run
// (`::error title=…::message`). Values are escaped as the runner expects, after control characters
// (names come from the traces) are made visible.
import { type Comparison, formatSignedBytes, formatSignedNs, type GateCheck } from "@cg/parser";
import { escapeControl } from "../format/escape-control.js";

const escapeData = (text: string): string =>
  escapeControl(text).replaceAll("%", "%25").replaceAll("\r", "%0D").replaceAll("\n", "%0A");
const escapeProperty = (text: string): string =>
  escapeData(text).replaceAll(":", "%3A").replaceAll(",", "%2C");

function command(kind: "error" | "notice", title: string, message: string): string {
  return `::${kind} title=${escapeProperty(title)}::${escapeData(message)}\n`;
}

const percent = (value: number | undefined): string =>
  value === undefined ? "new" : `${value >= 0 ? "+" : ""}${value.toFixed(1)}%`;

/** A gate check in one line: subject, metric, delta (and %), baseline → candidate. */
export function checkText(check: GateCheck): string {
  const format = check.metric === "time" ? formatSignedNs : formatSignedBytes;
  return `${check.subject} ${check.metric} ${format(check.delta)} (${percent(check.delta_percent)}), ${format(check.baseline).slice(1)} → ${format(check.candidate).slice(1)}`;
}

/** The first parts of each half, as one line. */
function causes(comparison: Comparison): string {
  const attribution = comparison.attribution;
  if (attribution === undefined) return "";
  const time = attribution.time.parts
    .slice(0, 3)
    .map((part) => `${formatSignedNs(part.delta_ns)} ${part.label}`)
    .join("; ");
  const peak = attribution.peak.parts
    .slice(0, 3)
    .map((part) => `${formatSignedBytes(part.delta_bytes)} ${part.label}`)
    .join("; ");
  const moved =
    attribution.peak.moved && attribution.peak.baseline_peak.span !== undefined
      ? ` The peak moved from ${attribution.peak.baseline_peak.span} to ${attribution.peak.candidate_peak.span}.`
      : "";
  return ` Time: ${time || "no named parts"}. Peak: ${peak || "no named parts"}.${moved}`;
}

/** One annotation per broken check, or a notice that the gate passed; an error for traces that are not comparable. */
export function githubAnnotations(comparison: Comparison): string {
  if (!comparison.comparable) {
    return command("error", "cg-trace compare: not comparable", comparison.reasons.join("; "));
  }
  const gate = comparison.gate;
  const headline = `time ${formatSignedNs(comparison.total_delta_ns)} (${percent(comparison.total_delta_percent)}), peak ${formatSignedBytes(comparison.peak_delta_bytes)} (${percent(comparison.peak_delta_percent)}).`;
  if (gate === undefined) return command("notice", "cg-trace compare", `${headline}${causes(comparison)}`);
  const broken = gate.checks.filter((check) => check.broken);
  if (broken.length === 0) {
    return command(
      "notice",
      `cg-trace compare: gate passed (${gate.rules.join(", ")})`,
      `${headline}${causes(comparison)}`,
    );
  }
  return broken
    .map((check) =>
      command("error", `cg-trace compare: ${check.rule}`, `${checkText(check)}.${causes(comparison)}`),
    )
    .join("");
}
