// The attribution as a short ranked text: the parts that explain most of each delta first, then
// what is unmatched and what is left. Names come from the traces: a caller writing to a terminal
// passes `name` to escape control characters in each of them (escaping the finished text would be
// too late: a name holding a line break has already forged a line).
import type {
  ComparisonAttribution,
  MemoryAttributionPart,
  PeakAttribution,
  TimeAttribution,
  TimeAttributionPart,
} from "./compare-attribution-types.js";
import type { SignedInteger } from "./signed-integer.js";

export interface FormatAttributionOptions {
  /** Parts listed per half (default 5). */
  limit?: number;
  /** Applied to every name taken from the traces (labels, span paths, tensor ids); as is by default. */
  name?: (text: string) => string;
}

type Name = (text: string) => string;

const BYTE_UNITS = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];

function magnitude(value: SignedInteger): { sign: string; size: bigint } {
  const big = BigInt(value);
  return { sign: big < 0n ? "-" : "+", size: big < 0n ? -big : big };
}

/** `+1.250 ms`, `-950 ns`. */
export function formatSignedNs(value: SignedInteger): string {
  const { sign, size } = magnitude(value);
  if (size < 1000n) return `${sign}${size} ns`;
  const ns = Number(size);
  if (ns < 1e6) return `${sign}${(ns / 1e3).toFixed(3)} µs`;
  if (ns < 1e9) return `${sign}${(ns / 1e6).toFixed(3)} ms`;
  return `${sign}${(ns / 1e9).toFixed(3)} s`;
}

/** `+64.00 MiB`, `-512 B`. */
export function formatSignedBytes(value: SignedInteger): string {
  const { sign, size } = magnitude(value);
  if (size < 1024n) return `${sign}${size} B`;
  let scaled = Number(size);
  let unit = 0;
  while (scaled >= 1024 && unit < BYTE_UNITS.length - 1) {
    scaled /= 1024;
    unit++;
  }
  return `${sign}${scaled.toFixed(2)} ${BYTE_UNITS[unit]}`;
}

const percent = (value: number | undefined): string =>
  value === undefined ? "new" : `${value >= 0 ? "+" : ""}${value.toFixed(1)}%`;
const wholePercent = (share: number): string => `${Math.round(share * 100)}%`;
const namedSum = <T>(parts: readonly T[], delta: (part: T) => SignedInteger): bigint =>
  parts.reduce((sum, part) => sum + BigInt(delta(part)), 0n);

function timeLine(part: TimeAttributionPart, name: Name): string {
  const calls =
    part.kind === "op" && part.baseline_calls !== undefined
      ? ` (${part.baseline_calls} → ${part.candidate_calls} calls)`
      : "";
  return `${String(part.rank).padStart(4)}. ${formatSignedNs(part.delta_ns).padStart(12)}  ${name(part.label)}${calls}`;
}

function memoryLine(part: MemoryAttributionPart, name: Name): string {
  const largest =
    part.largest === undefined
      ? ""
      : `; largest ${name(part.largest.tensor_id)} ${formatSignedBytes(part.largest.bytes).slice(1)}`;
  return `${String(part.rank).padStart(4)}. ${formatSignedBytes(part.delta_bytes).padStart(12)}  ${name(part.label)} (${part.baseline_allocations} → ${part.candidate_allocations} allocations${largest})`;
}

function timeText(time: TimeAttribution, limit: number, name: Name): string[] {
  const lines = [
    `Step time ${formatSignedNs(time.delta_ns)} (${percent(time.delta_percent)}); the named parts ${formatSignedNs(namedSum(time.parts, (part) => part.delta_ns))} (${wholePercent(time.named_share)} of it):`,
  ];
  for (const part of time.parts.slice(0, limit)) lines.push(timeLine(part, name));
  if (time.parts.length > limit)
    lines.push(`        … ${time.parts.length - limit} more named parts (--json lists them)`);
  const unmatched = time.unmatched;
  const largest = unmatched.largest.map((part) => `${part.side} ${name(part.label)}`).join("; ");
  lines.push(
    `      ${formatSignedNs(unmatched.delta_ns).padStart(12)}  unmatched: ${unmatched.parts} parts on one side only${largest === "" ? "" : ` (largest: ${largest})`}`,
  );
  lines.push(
    `      ${formatSignedNs(time.other.delta_ns).padStart(12)}  other: ${time.other.parts} smaller parts ${formatSignedNs(time.other.parts_delta_ns)}, time outside the spans' own time ${formatSignedNs(time.other.structure_delta_ns)}`,
  );
  return lines;
}

function peakText(peak: PeakAttribution, limit: number, name: Name): string[] {
  const moved =
    peak.moved && peak.baseline_peak.span !== undefined && peak.candidate_peak.span !== undefined
      ? `; the peak moved from ${name(peak.baseline_peak.span)} to ${name(peak.candidate_peak.span)}`
      : peak.candidate_peak.span === undefined
        ? ""
        : `; reached in ${name(peak.candidate_peak.span)}`;
  const lines = [
    `Peak memory ${formatSignedBytes(peak.delta_bytes)} (${percent(peak.delta_percent)}); the named parts ${formatSignedBytes(namedSum(peak.parts, (part) => part.delta_bytes))} (${wholePercent(peak.named_share)} of it)${moved}:`,
  ];
  for (const part of peak.parts.slice(0, limit)) lines.push(memoryLine(part, name));
  if (peak.parts.length > limit)
    lines.push(`        … ${peak.parts.length - limit} more named parts (--json lists them)`);
  const unmatched = peak.unmatched;
  const largest = unmatched.largest.map((part) => `${part.side} ${name(part.label)}`).join("; ");
  lines.push(
    `      ${formatSignedBytes(unmatched.delta_bytes).padStart(12)}  unmatched: ${unmatched.parts} parts on one side only${largest === "" ? "" : ` (largest: ${largest})`}`,
  );
  lines.push(
    `      ${formatSignedBytes(peak.other.delta_bytes).padStart(12)}  other: ${peak.other.parts} smaller parts ${formatSignedBytes(peak.other.parts_delta_bytes)}, peak not in live allocations ${formatSignedBytes(peak.other.structure_delta_bytes)}`,
  );
  if (peak.by_category.length > 0) {
    lines.push(
      `        by category: ${peak.by_category.map((row) => `${row.category} ${formatSignedBytes(row.delta_bytes)}`).join(", ")}`,
    );
  }
  return lines;
}

/** The attribution as ranked lines of text (no trailing newline). */
export function formatAttribution(
  attribution: ComparisonAttribution,
  options: FormatAttributionOptions = {},
): string {
  const limit = Math.max(0, options.limit ?? 5);
  const name = options.name ?? ((text: string) => text);
  return [...timeText(attribution.time, limit, name), ...peakText(attribution.peak, limit, name)].join("\n");
}
