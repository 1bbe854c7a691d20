// The sorted-key join against a plain map-per-round join of the same parts: the same groups, sums,
// zero matches and leftovers, whatever the keys, their order and the span sets.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type MatchedPart, matchParts, type SidePart } from "./compare-attribution-match.js";

const ROUNDS = 3;

/** A part with fixed keys and anchors per round (`null`: none in that round). */
function part(keys: (number | null)[], anchors: (number | null)[], value: bigint, count: number): SidePart {
  return {
    key: (round) => keys[round] ?? undefined,
    anchor: (round) => anchors[round] ?? undefined,
    sortKey: (round) => String(keys[round]),
    label: `part ${keys.join(",")}`,
    value,
    count,
  };
}

/** The join as a map per round, in the order the parts come. */
function naiveMatch(
  baseline: SidePart[],
  candidate: SidePart[],
  baselineSpans: Set<number>[],
  candidateSpans: Set<number>[],
) {
  let left = baseline;
  let right = candidate;
  const matched: MatchedPart[] = [];
  const groups = (parts: SidePart[], round: number) => {
    const map = new Map<number, SidePart[]>();
    for (const p of parts) {
      const key = p.key(round);
      if (key !== undefined) map.set(key, [...(map.get(key) ?? []), p]);
    }
    return map;
  };
  const total = (parts: SidePart[]) => parts.reduce((sum, p) => sum + p.value, 0n);
  const count = (parts: SidePart[]) => parts.reduce((sum, p) => sum + p.count, 0);
  for (let round = 0; round < ROUNDS; round++) {
    const l = groups(left, round);
    const r = groups(right, round);
    const taken = new Set<SidePart>();
    for (const [key, ls] of l) {
      const rs = r.get(key);
      if (rs === undefined) continue;
      matched.push({
        round,
        key,
        baselineFirst: ls[0],
        candidateFirst: rs[0],
        baseline: total(ls),
        candidate: total(rs),
        baselineCount: count(ls),
        candidateCount: count(rs),
      });
      for (const p of [...ls, ...rs]) taken.add(p);
    }
    for (const [map, others, isBaseline] of [
      [l, candidateSpans[round], true],
      [r, baselineSpans[round], false],
    ] as const) {
      for (const [key, ps] of map) {
        const first = ps[0] as SidePart;
        const anchor = first.anchor(round);
        if (taken.has(first) || anchor === undefined || others === undefined || !others.has(anchor)) continue;
        matched.push({
          round,
          key,
          baselineFirst: isBaseline ? first : undefined,
          candidateFirst: isBaseline ? undefined : first,
          baseline: isBaseline ? total(ps) : 0n,
          candidate: isBaseline ? 0n : total(ps),
          baselineCount: isBaseline ? count(ps) : 0,
          candidateCount: isBaseline ? 0 : count(ps),
        });
        for (const p of ps) taken.add(p);
      }
    }
    left = left.filter((p) => !taken.has(p));
    right = right.filter((p) => !taken.has(p));
  }
  return {
    matched: matched.filter((m) => m.baseline !== m.candidate),
    baselineOnly: left,
    candidateOnly: right,
  };
}

const byRoundAndKey = (parts: MatchedPart[]) =>
  [...parts].sort((a, b) => a.round - b.round || a.key - b.key || Number(a.baseline - b.baseline));

const arbitraryPart = fc
  .record({
    keys: fc.array(fc.option(fc.integer({ min: 0, max: 6 }), { nil: null }), {
      minLength: ROUNDS,
      maxLength: ROUNDS,
    }),
    anchors: fc.array(fc.option(fc.integer({ min: 0, max: 4 }), { nil: null }), {
      minLength: ROUNDS,
      maxLength: ROUNDS,
    }),
    value: fc.bigInt({ min: 0n, max: 1n << 70n }),
    count: fc.nat(5),
  })
  .map(({ keys, anchors, value, count }) => part(keys, anchors, value, count));

const spanSets = fc.array(fc.uniqueArray(fc.integer({ min: 0, max: 4 }), { maxLength: 5 }), {
  minLength: ROUNDS,
  maxLength: ROUNDS,
});

describe("matchParts", () => {
  it("sums each key's parts on both sides, and drops matches that did not change", () => {
    const a1 = part([1, 1, 9], [0, 0, null], 5n, 1);
    const a2 = part([1, 1, 9], [0, 0, null], 7n, 2);
    const b1 = part([1, 1, 9], [0, 0, null], 20n, 4);
    const same = part([2, 2, 9], [1, 1, null], 3n, 1);
    const sameAfter = part([2, 2, 9], [1, 1, null], 3n, 1);
    const result = matchParts([a1, a2, same], [b1, sameAfter], ROUNDS);
    expect(result.matched).toEqual([
      {
        round: 0,
        key: 1,
        baselineFirst: a1,
        candidateFirst: b1,
        baseline: 12n,
        candidate: 20n,
        baselineCount: 3,
        candidateCount: 4,
      },
    ]);
    expect(result.baselineOnly).toEqual([]);
    expect(result.candidateOnly).toEqual([]);
  });

  it("matches a later round's key only among the parts earlier rounds left, and a lone part against 0 when its span is there", () => {
    const exact = part([1, 10, 20], [0, 5, null], 4n, 1);
    const masked = part([2, 11, 20], [1, 6, null], 6n, 1);
    const other = part([3, 11, 21], [2, 6, null], 9n, 1);
    const lone = part([4, 12, 22], [3, 7, null], 8n, 1);
    const gone = part([5, 13, 23], [4, 8, null], 2n, 1);
    const result = matchParts(
      [exact, masked, lone, gone],
      [part([1, 10, 20], [0, 5, null], 5n, 1), other],
      ROUNDS,
      [new Set([0]), new Set([5, 6, 7, 8])],
      [new Set([0, 2]), new Set([5, 6, 7])],
    );
    expect(result.matched.map((m) => [m.round, m.key, m.baseline, m.candidate])).toEqual([
      [0, 1, 4n, 5n],
      [1, 11, 6n, 9n],
      [1, 12, 8n, 0n],
    ]);
    expect(result.baselineOnly).toEqual([gone]);
    expect(result.candidateOnly).toEqual([]);
  });

  it("equals a plain map-per-round join on any parts", () => {
    fc.assert(
      fc.property(
        fc.array(arbitraryPart, { maxLength: 30 }),
        fc.array(arbitraryPart, { maxLength: 30 }),
        spanSets,
        spanSets,
        (baseline, candidate, leftSpans, rightSpans) => {
          const bs = leftSpans.map((ids) => new Set(ids));
          const cs = rightSpans.map((ids) => new Set(ids));
          const fast = matchParts(baseline, candidate, ROUNDS, bs, cs);
          const naive = naiveMatch(baseline, candidate, bs, cs);
          expect(byRoundAndKey(fast.matched)).toEqual(byRoundAndKey(naive.matched));
          expect(fast.baselineOnly).toEqual(naive.baselineOnly);
          expect(fast.candidateOnly).toEqual(naive.candidateOnly);
        },
      ),
      { numRuns: 300 },
    );
  });
});
