import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { mannWhitneyU, median, medianAbsoluteDeviation, minimumBaselineRuns } from "./regress-stats.js";

/** U of every split of the pooled values into the two sizes, counted by brute force. */
function bruteForcePGreater(baseline: number[], candidate: number[]): number {
  const pooled = [...baseline, ...candidate];
  const m = candidate.length;
  const uOf = (chosen: number[]) => {
    let u = 0;
    const others = pooled.filter((_, index) => !chosen.includes(index));
    for (const index of chosen) {
      for (const other of others) {
        const value = pooled[index] as number;
        u += value > other ? 1 : value === other ? 0.5 : 0;
      }
    }
    return u;
  };
  const observed = uOf(candidate.map((_, index) => baseline.length + index));
  let atLeast = 0;
  let total = 0;
  const choose = (start: number, chosen: number[]) => {
    if (chosen.length === m) {
      total++;
      if (uOf(chosen) >= observed - 1e-9) atLeast++;
      return;
    }
    for (let index = start; index < pooled.length; index++) choose(index + 1, [...chosen, index]);
  };
  choose(0, []);
  return atLeast / total;
}

describe("median and MAD", () => {
  test("odd, even and spread", () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(medianAbsoluteDeviation([1, 1, 2, 2, 4, 6, 9])).toBe(1);
    expect(median([])).toBeNaN();
  });
  test("one outlier moves neither", () => {
    expect(median([10, 11, 12, 13, 1e12])).toBe(12);
    expect(medianAbsoluteDeviation([10, 11, 12, 13, 1e12])).toBe(1);
  });
});

describe("Mann-Whitney U", () => {
  test("exact values of small samples", () => {
    // Every candidate above every baseline: U = 15, p = 1 / C(8, 3).
    const all = mannWhitneyU([1, 2, 3, 4, 5], [6, 7, 8]);
    expect(all).toMatchObject({ u: 15, method: "exact" });
    expect(all.pGreater).toBeCloseTo(1 / 56, 12);
    expect(all.pLess).toBe(1);
    // Interleaved 3 + 3: U = 6, P(U ≥ 6) = 7/20 from the distribution 1,1,2,3,3,3,3,2,1,1.
    const mixed = mannWhitneyU([1, 3, 5], [2, 4, 6]);
    expect(mixed.u).toBe(6);
    expect(mixed.pGreater).toBeCloseTo(7 / 20, 12);
    expect(mixed.pLess).toBeCloseTo(16 / 20, 12);
  });

  test("exact p equals brute-force enumeration (with and without ties)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 6 }), { minLength: 1, maxLength: 6 }),
        fc.array(fc.integer({ min: 0, max: 6 }), { minLength: 1, maxLength: 4 }),
        (baseline, candidate) => {
          const test = mannWhitneyU(baseline, candidate);
          const exact = bruteForcePGreater(baseline, candidate);
          if (test.method === "exact") expect(test.pGreater).toBeCloseTo(exact, 10);
          // The tie-corrected normal approximation stays near the permutation p-value.
          else expect(Math.abs(test.pGreater - exact)).toBeLessThan(0.2);
          expect(test.pGreater).toBeGreaterThan(0);
          expect(test.pGreater).toBeLessThanOrEqual(1);
        },
      ),
      { seed: 28, numRuns: 150 },
    );
  });

  test("the normal approximation agrees with the exact test on larger samples", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 200 }), { minLength: 60, maxLength: 60 }),
        fc.array(fc.integer({ min: 0, max: 200 }), { minLength: 20, maxLength: 20 }),
        fc.integer({ min: 0, max: 60 }),
        (baseline, candidate, shift) => {
          const shifted = candidate.map((value) => value + shift);
          const exact = mannWhitneyU(baseline, shifted);
          const normal = mannWhitneyU(baseline, shifted, { exact: false });
          expect(exact.method).toBe("exact");
          expect(normal.method).toBe("normal");
          expect(normal.u).toBe(exact.u);
          expect(Math.abs(exact.pGreater - normal.pGreater)).toBeLessThan(0.01);
          expect(Math.abs(exact.pLess - normal.pLess)).toBeLessThan(0.01);
        },
      ),
      { seed: 28, numRuns: 25 },
    );
  });

  test("all values equal: no evidence either way", () => {
    const test = mannWhitneyU([5, 5, 5, 5], [5, 5]);
    expect(test.pGreater).toBe(1);
    expect(test.pLess).toBe(1);
  });
});

test("a single pair can never reach a verdict", () => {
  expect(minimumBaselineRuns(1, 0.01)).toBe(99);
  // C(10, 3) = 120 ≥ 100, C(9, 3) = 84 < 100.
  expect(minimumBaselineRuns(3, 0.01)).toBe(7);
  // C(6, 3) = 20: p = 0.05 is reachable with 3.
  expect(minimumBaselineRuns(3, 0.05)).toBe(3);
  expect(1 / mannWhitneyU([1], [2]).pGreater).toBe(2);
});
