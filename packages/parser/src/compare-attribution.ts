// Splits the measured-time delta over the span tree and the operator table, and the peak-memory
// delta over what was live at each peak. Parts are matched by span path, then by the path with its
// numbers masked (an update number in a span name), then by op signature (or category and op);
// the largest become named parts, the rest `other`, and one-sided parts `unmatched`.
import { MEMORY_CATEGORIES, type MemoryCategory } from "@cg/schema";
import { type MatchedPart, maskNumbers, matchParts, type SidePart } from "./compare-attribution-match.js";
import {
  MaskedPaths,
  MemoryPart,
  memoryLabel,
  OpTimePart,
  OWN_TIME,
  SpanTimePart,
} from "./compare-attribution-parts.js";
import type { AttributionSide, MemoryPartSide, PeakSide } from "./compare-attribution-side.js";
import type {
  AttributionMatch,
  AttributionOptions,
  CategoryDelta,
  ComparisonAttribution,
  MemoryAttributionPart,
  PeakAttribution,
  PeakLocation,
  TimeAttribution,
  TimeAttributionPart,
} from "./compare-attribution-types.js";
import { ComparisonInputError } from "./compare-error.js";
import type { SignedInteger } from "./signed-integer.js";

const MATCHES: readonly AttributionMatch[] = ["path", "masked_path", "signature"];

export function signedInteger(value: bigint): SignedInteger {
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(value)
    : value;
}

const abs = (value: bigint): bigint => (value < 0n ? -value : value);
const share = (part: bigint, total: bigint): number => (total === 0n ? 0 : Number(part) / Number(total));
const percentOf = (delta: bigint, base: bigint): number | undefined =>
  base === 0n ? undefined : (Number(delta) / Number(base)) * 100;

/** What a side holds to attribute, as `ComparisonSide.attribution` carries it. */
export interface AttributionSides {
  attribution?: AttributionSide | undefined;
}

/**
 * The attribution of the change from `baseline` to `candidate` (sides from `documentSide`,
 * `streamedSide` or `compareTraceFiles`' reader). Both halves add up exactly: named parts +
 * unmatched + other = the measured delta.
 */
export function attributeComparison(
  baseline: AttributionSides,
  candidate: AttributionSides,
  options: AttributionOptions = {},
): ComparisonAttribution {
  const before = baseline.attribution;
  const after = candidate.attribution;
  if (before === undefined || after === undefined) {
    throw new ComparisonInputError({
      code: "no_attribution_inputs",
      message: `attribution: the ${before === undefined ? "baseline" : "candidate"} side carries no attribution inputs (build it with documentSide or streamedSide)`,
    });
  }
  const limit = Math.max(0, options.partLimit ?? 20);
  return { time: attributeTime(before, after, limit), peak: attributePeak(before.peak, after.peak, limit) };
}

/** Orders parts by how much they explain the total's change: in its direction first, then by label. */
function rankOrder<T extends { label: string }>(parts: T[], delta: (part: T) => bigint, total: bigint): T[] {
  const aligned = (part: T): bigint =>
    total < 0n ? -delta(part) : total > 0n ? delta(part) : abs(delta(part));
  return parts.sort((left, right) => {
    const a = aligned(left);
    const b = aligned(right);
    return a > b ? -1 : a < b ? 1 : left.label < right.label ? -1 : left.label > right.label ? 1 : 0;
  });
}

/** The `limit` changed parts of largest |delta| (ties by key), and the other changed ones; unchanged parts add nothing. */
function splitNamed(matched: MatchedPart[], limit: number): { named: MatchedPart[]; rest: MatchedPart[] } {
  const sorted = matched
    .filter((part) => part.candidate !== part.baseline)
    .sort((left, right) => {
      const a = abs(left.candidate - left.baseline);
      const b = abs(right.candidate - right.baseline);
      return a > b ? -1 : a < b ? 1 : left.key < right.key ? -1 : left.key > right.key ? 1 : 0;
    });
  return { named: sorted.slice(0, limit), rest: sorted.slice(limit) };
}

function largestOneSided(
  baselineOnly: SidePart[],
  candidateOnly: SidePart[],
): { side: "baseline" | "candidate"; label: string; value: bigint }[] {
  // Labels are made only where the values tie, and for the three kept.
  return [
    ...baselineOnly.map((part) => ({ side: "baseline" as const, part })),
    ...candidateOnly.map((part) => ({ side: "candidate" as const, part })),
  ]
    .sort(({ part: left }, { part: right }) =>
      abs(left.value) > abs(right.value)
        ? -1
        : abs(left.value) < abs(right.value)
          ? 1
          : left.label < right.label
            ? -1
            : left.label > right.label
              ? 1
              : 0,
    )
    .slice(0, 3)
    .map(({ side, part }) => ({ side, label: part.label, value: part.value }));
}

const sumValues = (parts: readonly { value: bigint }[]): bigint =>
  parts.reduce((total, part) => total + part.value, 0n);
const sumDeltas = (parts: readonly MatchedPart[]): bigint =>
  parts.reduce((total, part) => total + part.candidate - part.baseline, 0n);

/** A side's time parts: each span's own time outside its ops, and each op signature's time in a span. */
function timeParts(side: AttributionSide): { parts: SidePart[]; selfSum: bigint } {
  const parts: SidePart[] = [];
  const masks = new MaskedPaths();
  const opTime = new Map<string, bigint>();
  for (const part of side.ops.values()) opTime.set(part.span, (opTime.get(part.span) ?? 0n) + part.ns);
  let selfSum = 0n;
  for (const [span, self] of side.span_self) {
    selfSum += self;
    parts.push(new SpanTimePart(masks, span, self - (opTime.get(span) ?? 0n)));
  }
  for (const part of side.ops.values()) {
    parts.push(new OpTimePart(masks, part.span, part.signature, part.ns, part.calls));
  }
  return { parts, selfSum };
}

function attributeTime(before: AttributionSide, after: AttributionSide, limit: number): TimeAttribution {
  const left = timeParts(before);
  const right = timeParts(after);
  const result = matchParts(
    left.parts,
    right.parts,
    MATCHES.length,
    spanSets(before.span_self.keys()),
    spanSets(after.span_self.keys()),
  );
  const total = after.total_ns - before.total_ns;
  const { named, rest } = splitNamed(result.matched, limit);
  const parts = rankOrder(named.map(timePart), (part) => BigInt(part.delta_ns), total).map((part, index) => ({
    ...part,
    rank: index + 1,
    share: share(BigInt(part.delta_ns), total),
  }));
  const unmatchedBefore = sumValues(result.baselineOnly);
  const unmatchedAfter = sumValues(result.candidateOnly);
  const structure = after.total_ns - right.selfSum - (before.total_ns - left.selfSum);
  const restDelta = sumDeltas(rest);
  const namedDelta = sumDeltas(named);
  const otherDelta = restDelta + structure;
  if (namedDelta + (unmatchedAfter - unmatchedBefore) + otherDelta !== total) {
    throw new ComparisonInputError({
      code: "attribution_sum",
      message: "attribution: the time parts do not add up to the measured delta",
    });
  }
  const attribution: TimeAttribution = {
    baseline_ns: signedInteger(before.total_ns),
    candidate_ns: signedInteger(after.total_ns),
    delta_ns: signedInteger(total),
    parts,
    unmatched: {
      baseline_ns: signedInteger(unmatchedBefore),
      candidate_ns: signedInteger(unmatchedAfter),
      delta_ns: signedInteger(unmatchedAfter - unmatchedBefore),
      parts: result.baselineOnly.length + result.candidateOnly.length,
      largest: largestOneSided(result.baselineOnly, result.candidateOnly).map(({ side, label, value }) => ({
        side,
        label,
        ns: signedInteger(value),
      })),
    },
    other: {
      delta_ns: signedInteger(otherDelta),
      parts: rest.length,
      parts_delta_ns: signedInteger(restDelta),
      structure_delta_ns: signedInteger(structure),
    },
    named_share: share(namedDelta, total),
  };
  const percent = percentOf(total, before.total_ns);
  if (percent !== undefined) attribution.delta_percent = percent;
  return attribution;
}

function timePart(part: MatchedPart): TimeAttributionPart {
  const match = MATCHES[part.round] as AttributionMatch;
  const [kind, first, second] = part.key.split("\u0000") as [string, string, string | undefined];
  const isOp = kind === "op";
  const row: TimeAttributionPart = {
    rank: 0,
    kind: isOp ? "op" : "span",
    label: match === "signature" ? `${second} (across spans)` : labelOf(part),
    match,
    baseline_ns: signedInteger(part.baseline),
    candidate_ns: signedInteger(part.candidate),
    delta_ns: signedInteger(part.candidate - part.baseline),
    share: 0,
  };
  if (isOp) {
    const signature = second as string;
    if (match !== "signature") row.span = labelOf(part).slice(signature.length + " in ".length);
    row.op = signature;
    row.baseline_calls = part.baselineCount;
    row.candidate_calls = part.candidateCount;
  } else {
    row.span = match === "path" ? first : labelOf(part).slice(0, -OWN_TIME.length);
  }
  return row;
}

/** The candidate's label of a matched part, or the baseline's when the candidate has none. */
const labelOf = (part: MatchedPart): string =>
  ((part.candidateFirst ?? part.baselineFirst) as SidePart).label;

/** A side's memory parts: the peak device's live allocations by (span, category, op). */
function memoryParts(peak: PeakSide): { parts: SidePart[]; sides: Map<SidePart, MemoryPartSide> } {
  const parts: SidePart[] = [];
  const sides = new Map<SidePart, MemoryPartSide>();
  const masks = new MaskedPaths();
  for (const part of peak.parts.values()) {
    const side = new MemoryPart(masks, part);
    parts.push(side);
    sides.set(side, part);
  }
  return { parts, sides };
}

function location(peak: PeakSide): PeakLocation {
  const where: PeakLocation = { device: peak.device, timestamp_ns: signedInteger(peak.timestamp_ns) };
  if (peak.span !== undefined) where.span = peak.span;
  return where;
}

/** A trace's spans as each round's anchors: the path keys, and the keys with numbers masked. */
function spanSets(keys: Iterable<string>): Set<string>[] {
  const exact = new Set(keys);
  return [exact, new Set([...exact].map(maskNumbers))];
}

function attributePeak(before: PeakSide, after: PeakSide, limit: number): PeakAttribution {
  const left = memoryParts(before);
  const right = memoryParts(after);
  const result = matchParts(
    left.parts,
    right.parts,
    MATCHES.length,
    spanSets(before.spans),
    spanSets(after.spans),
  );
  const total = after.bytes - before.bytes;
  const { named, rest } = splitNamed(result.matched, limit);
  // The largest allocation of each named part, from the parts it summed (candidate side first).
  const largestOf = (matched: MatchedPart, sides: Map<SidePart, MemoryPartSide>, pool: SidePart[]) => {
    let best: MemoryPartSide | undefined;
    for (const part of pool) {
      if (part.key(matched.round) !== matched.key) continue;
      const side = sides.get(part) as MemoryPartSide;
      if (best === undefined || side.largest.bytes > best.largest.bytes) best = side;
    }
    return best;
  };
  const parts = rankOrder(
    named.map((matched) => {
      const match = MATCHES[matched.round] as AttributionMatch;
      const fields = matched.key.split("\u0000");
      const category = fields[fields.length - 2] as MemoryCategory;
      const op = fields[fields.length - 1] as string;
      const candidateBest = largestOf(matched, right.sides, right.parts);
      const baselineBest = largestOf(matched, left.sides, left.parts);
      const span = match === "signature" ? undefined : (candidateBest ?? baselineBest)?.span;
      const row: MemoryAttributionPart = {
        rank: 0,
        label: memoryLabel(span, category, op),
        category,
        match,
        baseline_bytes: signedInteger(matched.baseline),
        candidate_bytes: signedInteger(matched.candidate),
        delta_bytes: signedInteger(matched.candidate - matched.baseline),
        share: 0,
        baseline_allocations: matched.baselineCount,
        candidate_allocations: matched.candidateCount,
      };
      if (span !== undefined) row.span = span;
      if (op !== "") row.op = op;
      const best = candidateBest ?? baselineBest;
      if (best !== undefined) {
        row.largest = {
          side: candidateBest === undefined ? "baseline" : "candidate",
          tensor_id: best.largest.tensor_id,
          bytes: signedInteger(best.largest.bytes),
        };
      }
      return row;
    }),
    (part) => BigInt(part.delta_bytes),
    total,
  ).map((part, index) => ({ ...part, rank: index + 1, share: share(BigInt(part.delta_bytes), total) }));

  const unmatchedBefore = sumValues(result.baselineOnly);
  const unmatchedAfter = sumValues(result.candidateOnly);
  const structure = after.bytes - sumValues(right.parts) - (before.bytes - sumValues(left.parts));
  const restDelta = sumDeltas(rest);
  const namedDelta = sumDeltas(named);
  const otherDelta = restDelta + structure;
  if (namedDelta + (unmatchedAfter - unmatchedBefore) + otherDelta !== total) {
    throw new ComparisonInputError({
      code: "attribution_sum",
      message: "attribution: the memory parts do not add up to the peak delta",
    });
  }
  const baselinePeak = location(before);
  const candidatePeak = location(after);
  const attribution: PeakAttribution = {
    baseline_bytes: signedInteger(before.bytes),
    candidate_bytes: signedInteger(after.bytes),
    delta_bytes: signedInteger(total),
    baseline_peak: baselinePeak,
    candidate_peak: candidatePeak,
    moved:
      baselinePeak.span !== undefined &&
      candidatePeak.span !== undefined &&
      maskNumbers(baselinePeak.span) !== maskNumbers(candidatePeak.span),
    parts,
    unmatched: {
      baseline_bytes: signedInteger(unmatchedBefore),
      candidate_bytes: signedInteger(unmatchedAfter),
      delta_bytes: signedInteger(unmatchedAfter - unmatchedBefore),
      parts: result.baselineOnly.length + result.candidateOnly.length,
      largest: largestOneSided(result.baselineOnly, result.candidateOnly).map(({ side, label, value }) => ({
        side,
        label,
        bytes: signedInteger(value),
      })),
    },
    other: {
      delta_bytes: signedInteger(otherDelta),
      parts: rest.length,
      parts_delta_bytes: signedInteger(restDelta),
      structure_delta_bytes: signedInteger(structure),
    },
    named_share: share(namedDelta, total),
    by_category: categoryDeltas(before, after),
  };
  const percent = percentOf(total, before.bytes);
  if (percent !== undefined) attribution.delta_percent = percent;
  return attribution;
}

function categoryDeltas(before: PeakSide, after: PeakSide): CategoryDelta[] {
  const totals = (peak: PeakSide) => {
    const map = new Map<MemoryCategory, bigint>();
    for (const part of peak.parts.values())
      map.set(part.category, (map.get(part.category) ?? 0n) + part.bytes);
    return map;
  };
  const left = totals(before);
  const right = totals(after);
  const rows: { category: MemoryCategory; before: bigint; after: bigint }[] = [];
  for (const category of MEMORY_CATEGORIES) {
    if (!left.has(category) && !right.has(category)) continue;
    rows.push({ category, before: left.get(category) ?? 0n, after: right.get(category) ?? 0n });
  }
  return rows
    .sort((a, b) => {
      const x = abs(a.after - a.before);
      const y = abs(b.after - b.before);
      return x > y ? -1 : x < y ? 1 : 0;
    })
    .map((row) => ({
      category: row.category,
      baseline_bytes: signedInteger(row.before),
      candidate_bytes: signedInteger(row.after),
      delta_bytes: signedInteger(row.after - row.before),
    }));
}
