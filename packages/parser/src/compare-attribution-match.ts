// Joins two sides' parts in rounds: each round matches what the previous one left over by a coarser
// key (the exact path, the path with its numbers masked, the op signature alone); what no round
// matches is unmatched. A part whose span exists on the other side (at that round's key) but holds
// nothing there is matched against 0: an op new to a span, an allocation not live at the other
// peak. Sums stay exact (bigints).

/**
 * A part of one side: its key per round and its value. Keys, anchors and the label are made when
 * asked, not held: a side has a part per span and per (span, op signature), and those strings held
 * for every part of both sides were most of a large comparison's memory.
 */
export interface SidePart {
  /** The part's key in `round`; `undefined` skips the part in that round. */
  key(round: number): string | undefined;
  /** The part's span in `round`, as the other side's span sets hold it (`undefined`: no span round). */
  anchor(round: number): string | undefined;
  readonly label: string;
  readonly value: bigint;
  /** Calls or allocations. */
  readonly count: number;
}

/** Parts matched in one round, summed per key. */
export interface MatchedPart {
  round: number;
  key: string;
  /** The first part on each side (its label names the match), absent on a side matched against 0. */
  baselineFirst: SidePart | undefined;
  candidateFirst: SidePart | undefined;
  baseline: bigint;
  candidate: bigint;
  baselineCount: number;
  candidateCount: number;
}

export interface MatchResult {
  matched: MatchedPart[];
  /** Parts on one side only after every round. */
  baselineOnly: SidePart[];
  candidateOnly: SidePart[];
}

function groupBy(parts: readonly SidePart[], round: number): Map<string, SidePart[]> {
  const groups = new Map<string, SidePart[]>();
  for (const part of parts) {
    const key = part.key(round);
    if (key === undefined) continue;
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [part]);
    else group.push(part);
  }
  return groups;
}

const sum = (parts: readonly SidePart[], field: "value" | "count"): bigint =>
  parts.length === 1
    ? BigInt((parts[0] as SidePart)[field])
    : parts.reduce((total, part) => total + BigInt(part[field]), 0n);

/**
 * Matches `baseline` and `candidate` parts round by round (`rounds` = length of every `keys`);
 * `baselineSpans[round]` / `candidateSpans[round]`: the spans each trace holds, keyed as `anchors`.
 */
export function matchParts(
  baseline: readonly SidePart[],
  candidate: readonly SidePart[],
  rounds: number,
  baselineSpans: readonly ReadonlySet<string>[] = [],
  candidateSpans: readonly ReadonlySet<string>[] = [],
): MatchResult {
  let left = baseline;
  let right = candidate;
  const matched: MatchedPart[] = [];
  for (let round = 0; round < rounds; round++) {
    const leftGroups = groupBy(left, round);
    const rightGroups = groupBy(right, round);
    const taken = new Set<SidePart>();
    for (const [key, leftParts] of leftGroups) {
      const rightParts = rightGroups.get(key);
      if (rightParts === undefined) continue;
      matched.push({
        round,
        key,
        baselineFirst: leftParts[0],
        candidateFirst: rightParts[0],
        baseline: sum(leftParts, "value"),
        candidate: sum(rightParts, "value"),
        baselineCount: Number(sum(leftParts, "count")),
        candidateCount: Number(sum(rightParts, "count")),
      });
      for (const part of leftParts) taken.add(part);
      for (const part of rightParts) taken.add(part);
    }
    // Parts whose span the other trace holds, at nothing: matched against 0.
    const alone = (
      groups: Map<string, SidePart[]>,
      others: ReadonlySet<string> | undefined,
      left: boolean,
    ) => {
      if (others === undefined) return;
      for (const [key, parts] of groups) {
        const first = parts[0] as SidePart;
        const anchor = first.anchor(round);
        if (taken.has(first) || anchor === undefined || !others.has(anchor)) continue;
        const value = sum(parts, "value");
        const count = Number(sum(parts, "count"));
        matched.push({
          round,
          key,
          baselineFirst: left ? first : undefined,
          candidateFirst: left ? undefined : first,
          baseline: left ? value : 0n,
          candidate: left ? 0n : value,
          baselineCount: left ? count : 0,
          candidateCount: left ? 0 : count,
        });
        for (const part of parts) taken.add(part);
      }
    };
    alone(leftGroups, candidateSpans[round], true);
    alone(rightGroups, baselineSpans[round], false);
    left = left.filter((part) => !taken.has(part));
    right = right.filter((part) => !taken.has(part));
  }
  return { matched, baselineOnly: [...left], candidateOnly: [...right] };
}

/** A path with every run of digits masked: `model/update-000000000002/forward` → `model/update-#/forward`. */
export const maskNumbers = (path: string): string => path.replace(/[0-9]+/g, "#");
