// Splits the measured-time delta over the span tree and the operator table, and the peak-memory
// delta over what was live at each peak. Parts are matched by span path, then by the path with its
// numbers masked (an update number in a span name), then by op signature (or category and op);
// the largest become named parts, the rest `other`, and one-sided parts `unmatched`.
import { MEMORY_CATEGORIES, type MemoryCategory } from "@cg/schema/core";
import { type MatchedPart, maskNumbers, matchParts, type SidePart } from "./compare-attribution-match.js";
import {
  KeySpace,
  MemoryPart,
  memoryLabel,
  OpTimePart,
  SpanNames,
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
import { signedInteger } from "./signed-integer.js";

const MATCHES: readonly AttributionMatch[] = ["path", "masked_path", "signature"];

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

/** The `limit` changed parts of largest |delta| (ties by key text), and the other changed ones; unchanged parts add nothing. */
function splitNamed(matched: MatchedPart[], limit: number): { named: MatchedPart[]; rest: MatchedPart[] } {
  const changed = matched.filter((part) => part.candidate !== part.baseline);
  const size = (part: MatchedPart): bigint => abs(part.candidate - part.baseline);
  changed.sort((left, right) => {
    const a = size(left);
    const b = size(right);
    return a > b ? -1 : a < b ? 1 : 0;
  });
  // Key texts only for runs of equal deltas, and only while the run is sorted.
  for (let from = 0; from < changed.length; ) {
    let to = from + 1;
    const delta = size(changed[from] as MatchedPart);
    while (to < changed.length && size(changed[to] as MatchedPart) === delta) to++;
    if (to - from > 1) {
      const run = changed
        .slice(from, to)
        .map((part) => ({ part, text: firstOf(part).sortKey(part.round) }))
        .sort((left, right) => (left.text < right.text ? -1 : left.text > right.text ? 1 : 0));
      for (let at = from; at < to; at++) changed[at] = (run[at - from] as { part: MatchedPart }).part;
    }
    from = to;
  }
  return { named: changed.slice(0, limit), rest: changed.slice(limit) };
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
function timeParts(side: AttributionSide, spans: SpanNames): { parts: SidePart[]; selfSum: bigint } {
  const parts: SidePart[] = [];
  const opTime = new Map<string, bigint>();
  for (const part of side.ops) opTime.set(part.span, (opTime.get(part.span) ?? 0n) + part.ns);
  let selfSum = 0n;
  for (const [span, self] of side.span_self) {
    selfSum += self;
    parts.push(new SpanTimePart(spans.space, spans.of(span), self - (opTime.get(span) ?? 0n)));
  }
  opTime.clear();
  for (const part of side.ops) {
    const signature = spans.space.id(part.signature);
    parts.push(
      new OpTimePart(spans.space, spans.of(part.span), part.signature, signature, part.ns, part.calls),
    );
  }
  return { parts, selfSum };
}

function attributeTime(before: AttributionSide, after: AttributionSide, limit: number): TimeAttribution {
  const spans = new SpanNames(new KeySpace());
  const left = timeParts(before, spans);
  const right = timeParts(after, spans);
  const result = matchParts(
    left.parts,
    right.parts,
    MATCHES.length,
    spans.anchorSets(before.span_self.keys()),
    spans.anchorSets(after.span_self.keys()),
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
  // The candidate's part names the match (the baseline's when the candidate has none).
  const first = firstOf(part) as SpanTimePart | OpTimePart;
  const row: TimeAttributionPart = {
    rank: 0,
    kind: first.kind,
    label: match === "signature" && first.kind === "op" ? `${first.signature} (across spans)` : first.label,
    match,
    baseline_ns: signedInteger(part.baseline),
    candidate_ns: signedInteger(part.candidate),
    delta_ns: signedInteger(part.candidate - part.baseline),
    share: 0,
  };
  if (first.kind === "op") {
    if (match !== "signature") row.span = first.span.path;
    row.op = first.signature;
    row.baseline_calls = part.baselineCount;
    row.candidate_calls = part.candidateCount;
  } else {
    row.span = first.span.path;
  }
  return row;
}

/** The candidate's first part of a match, or the baseline's when the candidate has none. */
const firstOf = (part: MatchedPart): SidePart => (part.candidateFirst ?? part.baselineFirst) as SidePart;

/** A side's memory parts: the peak device's live allocations by (span, category, op). */
function memoryParts(peak: PeakSide, spans: SpanNames): MemoryPart[] {
  const parts: MemoryPart[] = [];
  for (const part of peak.parts.values()) parts.push(new MemoryPart(spans.space, spans.of(part.span), part));
  return parts;
}

function location(peak: PeakSide): PeakLocation {
  const where: PeakLocation = { device: peak.device, timestamp_ns: signedInteger(peak.timestamp_ns) };
  if (peak.span !== undefined) where.span = peak.span;
  return where;
}

function attributePeak(before: PeakSide, after: PeakSide, limit: number): PeakAttribution {
  const spans = new SpanNames(new KeySpace());
  const left = memoryParts(before, spans);
  const right = memoryParts(after, spans);
  const result = matchParts(
    left,
    right,
    MATCHES.length,
    spans.anchorSets(before.spans),
    spans.anchorSets(after.spans),
  );
  const total = after.bytes - before.bytes;
  const { named, rest } = splitNamed(result.matched, limit);
  // The largest allocation of each named part, from the parts it summed (candidate side first).
  const largestOf = (matched: MatchedPart, pool: readonly MemoryPart[]) => {
    let best: MemoryPartSide | undefined;
    for (const { part } of pool.filter((side) => side.key(matched.round) === matched.key)) {
      if (best === undefined || part.largest.bytes > best.largest.bytes) best = part;
    }
    return best;
  };
  const parts = rankOrder(
    named.map((matched) => {
      const match = MATCHES[matched.round] as AttributionMatch;
      const { category, op } = (firstOf(matched) as MemoryPart).part;
      const candidateBest = largestOf(matched, right);
      const baselineBest = largestOf(matched, left);
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
  const structure = after.bytes - sumValues(right) - (before.bytes - sumValues(left));
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
