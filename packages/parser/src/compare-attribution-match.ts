// Joins two sides' parts in rounds: each round matches what the previous one left over by a coarser
// key (the exact path, the path with its numbers masked, the op signature alone); what no round
// matches is unmatched. A part whose span exists on the other side (at that round's key) but holds
// nothing there is matched against 0: an op new to a span, an allocation not live at the other
// peak. Sums stay exact (bigints).

/**
 * A part of one side: its key per round and its value. Keys are numbers from one `KeySpace` shared
 * by both sides (equal keys: the same span, signature or category on either side); the key's text,
 * the anchor's and the label are made when asked, not held: a side has a part per span and per
 * (span, op signature), and strings held for every part of both sides were most of a large
 * comparison's memory.
 */
export interface SidePart {
  /** The part's key in `round`; `undefined` skips the part in that round. */
  key(round: number): number | undefined;
  /** The key as text: ties between equal deltas are ordered by it, the same on every run. */
  sortKey(round: number): string;
  /** The part's span in `round`, as the other side's span sets hold it (`undefined`: no span round). */
  anchor(round: number): number | undefined;
  readonly label: string;
  readonly value: bigint;
  /** Calls or allocations. */
  readonly count: number;
}

/** Parts matched in one round, summed per key. */
export interface MatchedPart {
  round: number;
  key: number;
  /** The first part on each side (its label names the match), absent on a side matched against 0. */
  baselineFirst: SidePart | undefined;
  candidateFirst: SidePart | undefined;
  baseline: bigint;
  candidate: bigint;
  baselineCount: number;
  candidateCount: number;
}

export interface MatchResult {
  /** The matches whose values differ (an unchanged one adds nothing to any delta). */
  matched: MatchedPart[];
  /** Parts on one side only after every round. */
  baselineOnly: SidePart[];
  candidateOnly: SidePart[];
}

/** The parts of one side not matched yet that have a key in a round, ordered by key (then by position). */
class KeyedParts {
  readonly order: Int32Array;
  readonly keys: Float64Array;

  constructor(parts: readonly SidePart[], taken: Uint8Array, round: number) {
    const keyOf = new Float64Array(parts.length);
    const order: number[] = [];
    for (let index = 0; index < parts.length; index++) {
      if (taken[index] === 1) continue;
      const key = (parts[index] as SidePart).key(round);
      if (key === undefined) continue;
      keyOf[index] = key;
      order.push(index);
    }
    this.order = Int32Array.from(order).sort((a, b) => (keyOf[a] as number) - (keyOf[b] as number) || a - b);
    this.keys = new Float64Array(this.order.length);
    for (let at = 0; at < this.order.length; at++) this.keys[at] = keyOf[this.order[at] as number] as number;
  }

  /** The end of the run of equal keys that starts at `from`. */
  runEnd(from: number): number {
    let to = from + 1;
    while (to < this.keys.length && this.keys[to] === this.keys[from]) to++;
    return to;
  }
}

/** Sums a run of parts and marks them matched. */
function take(
  parts: readonly SidePart[],
  keyed: KeyedParts,
  from: number,
  to: number,
  taken: Uint8Array,
): { first: SidePart; value: bigint; count: number } {
  const first = parts[keyed.order[from] as number] as SidePart;
  let value = 0n;
  let count = 0;
  for (let at = from; at < to; at++) {
    const index = keyed.order[at] as number;
    const part = parts[index] as SidePart;
    value += part.value;
    count += part.count;
    taken[index] = 1;
  }
  return { first, value, count };
}

/**
 * Matches `baseline` and `candidate` parts round by round (`rounds` = length of every `keys`);
 * `baselineSpans[round]` / `candidateSpans[round]`: the spans each trace holds, keyed as `anchors`.
 * Each round joins the two sides' parts sorted by key (typed columns, no map per part).
 */
export function matchParts(
  baseline: readonly SidePart[],
  candidate: readonly SidePart[],
  rounds: number,
  baselineSpans: readonly ReadonlySet<number>[] = [],
  candidateSpans: readonly ReadonlySet<number>[] = [],
): MatchResult {
  const leftTaken = new Uint8Array(baseline.length);
  const rightTaken = new Uint8Array(candidate.length);
  const matched: MatchedPart[] = [];
  const add = (
    round: number,
    key: number,
    before: ReturnType<typeof take> | undefined,
    after: ReturnType<typeof take> | undefined,
  ) => {
    // An unchanged match adds nothing to any delta: it is not kept.
    if ((before?.value ?? 0n) === (after?.value ?? 0n)) return;
    matched.push({
      round,
      key,
      baselineFirst: before?.first,
      candidateFirst: after?.first,
      baseline: before?.value ?? 0n,
      candidate: after?.value ?? 0n,
      baselineCount: before?.count ?? 0,
      candidateCount: after?.count ?? 0,
    });
  };
  for (let round = 0; round < rounds; round++) {
    const left = new KeyedParts(baseline, leftTaken, round);
    const right = new KeyedParts(candidate, rightTaken, round);
    for (let i = 0, j = 0; i < left.keys.length && j < right.keys.length; ) {
      const leftKey = left.keys[i] as number;
      const rightKey = right.keys[j] as number;
      if (leftKey < rightKey) i = left.runEnd(i);
      else if (rightKey < leftKey) j = right.runEnd(j);
      else {
        const leftEnd = left.runEnd(i);
        const rightEnd = right.runEnd(j);
        add(
          round,
          leftKey,
          take(baseline, left, i, leftEnd, leftTaken),
          take(candidate, right, j, rightEnd, rightTaken),
        );
        i = leftEnd;
        j = rightEnd;
      }
    }
    // Parts whose span the other trace holds, at nothing: matched against 0.
    const alone = (
      parts: readonly SidePart[],
      keyed: KeyedParts,
      taken: Uint8Array,
      others: ReadonlySet<number> | undefined,
      isBaseline: boolean,
    ) => {
      if (others === undefined) return;
      for (let from = 0; from < keyed.keys.length; ) {
        const to = keyed.runEnd(from);
        const index = keyed.order[from] as number;
        const anchor = (parts[index] as SidePart).anchor(round);
        if (taken[index] === 0 && anchor !== undefined && others.has(anchor)) {
          const run = take(parts, keyed, from, to, taken);
          add(round, keyed.keys[from] as number, isBaseline ? run : undefined, isBaseline ? undefined : run);
        }
        from = to;
      }
    };
    alone(baseline, left, leftTaken, candidateSpans[round], true);
    alone(candidate, right, rightTaken, baselineSpans[round], false);
  }
  return {
    matched,
    baselineOnly: baseline.filter((_, index) => leftTaken[index] === 0),
    candidateOnly: candidate.filter((_, index) => rightTaken[index] === 0),
  };
}

/** A path with every run of digits masked: `model/update-000000000002/forward` → `model/update-#/forward`. */
export const maskNumbers = (path: string): string => path.replace(/[0-9]+/g, "#");
